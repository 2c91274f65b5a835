/**
 * The four Procfile roles as production runs them: compiled JavaScript from dist/ (`npm run build`), plain node, no
 * TypeScript loader, on one migrated Postgres database. Each answers /health; the modules they start as processes of
 * their own (the worker's sandboxes, the OCSP fronts, the verification pool) are found beside the compiled code. On
 * the local vault, local files and no chain, none of their processes loads an Azure SDK or ethers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/private-redis.js';
import { opsPortOf, procfileArgs, startProcfileRole, type RoleProcess } from '../support/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Packages a role loads only when it is configured to use them: the Azure drivers' SDKs, and ethers for a chain. */
const CONFIGURED_ONLY = /\/node_modules\/(@azure\/[^/]+|ethers)\//;

/** Every process of a role's group (the role and what it started) with its command line. */
function groupCommands(role: RoleProcess): string[] {
  const pgid = role.child.pid!;
  return execFileSync('ps', ['-eo', 'pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) === pgid)
    .map((m) => m[2]!);
}

async function health(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json() };
}

describe('build: the Procfile roles compiled, from dist/', function () {
  this.timeout(240_000);
  let db: TestDatabase;
  let dataDir: string;
  const roles = new Map<string, RoleProcess>();
  let env: Record<string, string>;
  let modulesFile: string;

  before(async () => {
    // What `npm start` does before it runs: nothing when dist/ is newer than every source file.
    execFileSync(process.execPath, ['bin/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'ignore' });
    db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'compiled-roles-'));
    modulesFile = path.join(dataDir, 'modules.txt');
    const [port, ocsp, crl, tsa] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    env = {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `compiled-${process.pid}-${Date.now()}`,
      DATA_DIR: dataDir,
      JWT_SECRET: 'compiled-roles-test-secret-0123456789abcdef',
      PORT: String(port),
      OCSP_PORT: String(ocsp),
      CRL_PORT: String(crl),
      TSA_PORT: String(tsa),
      TSA_URL: `http://127.0.0.1:${tsa}`,
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
      // Every process of every role (and what it starts, which inherits NODE_OPTIONS) lists the modules it loads.
      NODE_OPTIONS: `--import=${pathToFileURL(path.join(ROOT, 'test/support/record-modules.mjs')).href}`,
      RECORD_MODULES_TO: modulesFile,
    };
    // The certificates the OCSP role serves and the TSA signs with, as `npm run pki -- init` issues them.
    await initPki({ knex: db.knex, vault: createKeyVault(loadConfig(env)), config: loadConfig(env) });
  });

  after(async () => {
    await Promise.all([...roles.values()].map((r) => r.stop()));
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the Procfile runs node on dist/, without a TypeScript loader', () => {
    for (const role of ['web', 'worker', 'scheduler', 'ocsp']) {
      const args = procfileArgs(role);
      expect(args.join(' '), role).to.not.match(/tsx|--import|--loader/);
      expect(args[args.length - 1], role).to.match(/^dist\/.+\.js$/);
    }
  });

  it('every role starts from dist/ and answers /health', async () => {
    // Started together: one migrated database, each role checking the schema at its start as in production.
    const started = await Promise.all([
      startProcfileRole('ocsp', env, /OCSP responder, CRL host and TSA listening/),
      startProcfileRole('scheduler', env, /CRL publication scheduled/),
      startProcfileRole('web', env, /API listening/),
      startProcfileRole('worker', env, /sign worker started/),
    ]);
    for (const [name, role] of [['ocsp', started[0]], ['scheduler', started[1]], ['web', started[2]], ['worker', started[3]]] as const) roles.set(name, role);

    for (const [name, role] of roles) {
      expect(await health(`http://127.0.0.1:${opsPortOf(role)}/health`), `${name}'s operator listener`).to.deep.equal({ status: 200, body: { status: 'ok' } });
      // No process of the role runs TypeScript: no tsx loader, no esbuild service.
      const commands = groupCommands(role);
      expect(commands.length, name).to.be.greaterThan(0);
      for (const command of commands) expect(command, name).to.not.match(/tsx|esbuild|\.ts(\s|$)/);
    }
    expect((await health(`http://127.0.0.1:${env.PORT}/health`)).status).to.equal(200);
    expect(await health(`http://127.0.0.1:${env.OCSP_PORT}/health`)).to.deep.equal({ status: 200, body: { status: 'ok' } });

    // Processes started from compiled modules by path: the worker's sandboxes and the OCSP front are running.
    expect(groupCommands(roles.get('worker')!).filter((c) => c.includes('bullmq'))).to.have.length.greaterThan(0);
    expect(groupCommands(roles.get('ocsp')!).some((c) => c.includes('dist/ocsp/front.js'))).to.equal(true);
  });

  it('the compiled web role verifies a file in its verification pool and serves the web app', async () => {
    const base = `http://127.0.0.1:${env.PORT}`;
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path.join(ROOT, 'test/fixtures/photo.jpg'))], { type: 'image/jpeg' }), 'photo.jpg');
    const res = await fetch(`${base}/v1/verify`, { method: 'POST', body: form });
    const body = (await res.json()) as { validation_state?: string };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.validation_state).to.equal('none');
    expect(groupCommands(roles.get('web')!).some((c) => c.includes('dist/api/media/verify-process.js'))).to.equal(true);
    // The browser application and the trust lists are read from the repository, not from dist/.
    const page = await fetch(`${base}/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(/<html/i);
  });

  it('on the local vault, local files and no chain, no process of any role loads an Azure SDK or ethers', async () => {
    // Stopped first: a process lists its CommonJS modules as it exits.
    await Promise.all([...roles.values()].map((r) => r.stop()));
    const lines = readFileSync(modulesFile, 'utf8').trim().split('\n');
    const pids = new Set(lines.map((line) => Number(line.split(' ', 1)[0])));
    // The recorder ran in each role's own process and in the processes they started, and saw their packages load.
    for (const [name, role] of roles) expect(pids.has(role.child.pid!), name).to.equal(true);
    expect(pids.size).to.be.greaterThan(roles.size);
    expect(lines.some((line) => line.includes(' esm ') && line.includes('/node_modules/bullmq/'))).to.equal(true);
    expect(lines.some((line) => line.includes(' cjs ') && line.includes('/node_modules/express/'))).to.equal(true);
    expect([...new Set(lines.map((line) => CONFIGURED_ONLY.exec(line)?.[1]).filter(Boolean))]).to.deep.equal([]);
  });
});
