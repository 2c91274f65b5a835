/**
 * Clean-up safety net of bench/pki/run.ts, started detached (its own process group) with the bench's pid, its
 * throwaway database and its temp dir. Once the bench process is gone — finished, failed, or killed outright
 * (tsx answers Ctrl-C by SIGKILLing a child that is busy for more than about 60 ms, so the bench's own
 * SIGINT handler cannot be relied on) — it drops the database and removes the dir, both idempotent (the bench
 * normally did so already), then exits. Bounded: at most about 30 s after the bench is gone.
 *
 *   tsx bench/pki/janitor.ts <bench pid> <admin database url> <database name> <temp dir>
 */
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory from 'knex';

const [pidText, adminUrl, dbName, dir] = process.argv.slice(2);
const pid = Number(pidText);
if (!Number.isInteger(pid) || !adminUrl || !dbName || !/^bench_pki_[0-9a-f]+$/.test(dbName) || !dir) {
  console.error('usage: janitor.ts <pid> <admin url> <bench_pki_... database> <dir>');
  process.exit(2);
}

const alive = () => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

while (alive()) await sleep(500);
setTimeout(() => process.exit(1), 30_000).unref();
rmSync(dir, { recursive: true, force: true });
const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 10_000 });
try {
  await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
} finally {
  await admin.destroy();
}
