/**
 * Once per mocha run, in mocha's own process before any test file loads (.mocharc.json `require`: global fixtures):
 * - dist/ is built when it is missing or older than a source (`node bin/build.mjs --if-stale`, a second), so that the
 *   roles and CLIs the tests start run compiled (node-script.ts), as production runs them, without tsx's loader and
 *   esbuild process in every one of them;
 * - one migrated Postgres database is made for the run, and every test file's database is a copy of it
 *   (database.ts: CREATE DATABASE ... TEMPLATE), instead of running every migration again in each.
 * The template is dropped after the run; one left by a run that was killed is dropped by the next (its pid is gone).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { openDatabase } from '../../shared/db/index.js';
import { ADMIN_URL, databaseUrl, TEMPLATE_DATABASE_VARIABLE } from './database.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TEMPLATE_PREFIX = 'test_tpl_';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function createTemplate(): Promise<string> {
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await admin.raw<{ rows: { datname: string }[] }>('SELECT datname FROM pg_database WHERE datname LIKE ?', [`${TEMPLATE_PREFIX}%`]);
    for (const { datname } of rows) {
      const pid = Number(datname.slice(TEMPLATE_PREFIX.length).split('_')[0]);
      if (!isRunning(pid)) await admin.raw(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    const name = `${TEMPLATE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
    await admin.raw(`CREATE DATABASE ${name}`);
    const knex = await openDatabase({ databaseUrl: databaseUrl(name), dataDir: '/nonexistent' });
    await knex.destroy();
    return name;
  } finally {
    await admin.destroy();
  }
}

export async function mochaGlobalSetup(): Promise<void> {
  const built = spawnSync(process.execPath, [path.join(ROOT, 'bin/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed: the tests start the roles from dist/');
  // Workers are started after this and inherit the variable.
  process.env[TEMPLATE_DATABASE_VARIABLE] = await createTemplate();
}

export async function mochaGlobalTeardown(): Promise<void> {
  const name = process.env[TEMPLATE_DATABASE_VARIABLE];
  if (!name) return;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.destroy());
}
