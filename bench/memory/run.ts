/**
 * bench/memory: the compiled roles' memory and start-up, read from /proc, against issue 32's limits.
 *
 *  1. `npm run build` timed (dist/ rebuilt from scratch).
 *  2. The four Procfile roles, exactly as the Procfile runs them (node on dist/), one after the other on a migrated
 *     Postgres database with its PKI: the time from spawn to the first 200 from its /health (limit 3 s; asked from
 *     the spawn on, the role's own log line saying it is ready timed apart), then after
 *     `--idle` seconds at rest each process's RSS (VmRSS) and V8 heap (limit 150 MiB for each role's own process;
 *     the worker's sandboxes, the OCSP fronts and the verification supervisors listed apart). Then `--images` signed
 *     images through the API and the workers, `--idle` seconds again, and the RSS once more (limit: 1.2 x at rest).
 *  3. `npm start` on a fresh DATA_DIR (no Redis: the in-process queue; PKI and embedded chain created): the time to
 *     its first /health (limit 15 s), its whole process group's RSS at rest (limit 500 MiB), and after the images.
 *
 *   npx tsx bench/memory/run.ts [--idle 60] [--images 200] [--only roles|start]
 * Needs Postgres (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import { loadConfig } from '../../shared/config.js';
import { openDatabase } from '../../shared/db/index.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { freePort } from '../../test/support/private-redis.js';
import { startProcfileRole, type RoleProcess } from '../../test/support/processes.js';
import { photoLikeJpeg } from '../support/photo-jpeg.js';

const { values } = parseArgs({ options: { idle: { type: 'string', default: '60' }, images: { type: 'string', default: '200' }, only: { type: 'string' } } });
const IDLE_MS = Number(values.idle) * 1000;
const IMAGES = Number(values.images);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MIB = 1024 * 1024;
const ROLE_LIMIT_MIB = 150;
const START_LIMIT_MIB = 500;
const GROWTH_LIMIT = 1.2;
const ROLE_HEALTH_LIMIT_S = 3;
const START_HEALTH_LIMIT_S = 15;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  rssBytes: number;
  args: string;
}

/** Every process on the machine: pid, parent, group, RSS (VmRSS, from /proc/<pid>/status) and command line. */
function processes(): Proc[] {
  const rows: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      rows.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]), rssBytes: rss ? Number(rss[1]) * 1024 : 0, args });
    } catch {
      // gone meanwhile
    }
  }
  return rows;
}

/** A process and its descendants. */
function tree(pid: number, all = processes()): Proc[] {
  const ours = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!ours.has(p.pid) && ours.has(p.ppid)) {
        ours.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => ours.has(p.pid));
}

/** What a child process is, by its command line. */
function kindOf(args: string): string {
  if (args.includes('bullmq')) return 'sandbox';
  if (args.includes('verify-supervisor')) return 'verify supervisor';
  if (args.includes('verify-process')) return 'verify member';
  if (args.includes('ocsp/front')) return 'OCSP front';
  if (args.includes('anvil')) return 'anvil (embedded chain)';
  if (args.startsWith('npm')) return 'npm';
  if (args.startsWith('sh ') || args.startsWith('/bin/sh')) return 'sh';
  return args.split(' ').slice(0, 2).join(' ');
}

/** The role process's own V8 heap (used) and external memory, from its /metrics. */
async function heapOf(opsPort: number): Promise<string> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
    return `heap used ${mib(read('mss_nodejs_heap_size_used_bytes'))} of ${mib(read('mss_nodejs_heap_size_total_bytes'))}, external ${mib(read('mss_nodejs_external_memory_bytes'))}`;
  } catch {
    return 'heap: metrics unavailable';
  }
}

async function untilHealthy(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}: no 200 within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** `n` images uploaded and signed through the API at `base`, 4 at a time, each waited for to its end. */
async function signImages(base: string, n: number): Promise<number> {
  const reg = await json(await fetch(`${base}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'bench passphrase 1', org_name: 'Bench' }) }));
  const auth = { authorization: `Bearer ${String(reg.access_token)}` };
  const key = await json(await fetch(`${base}/org/api-keys`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) }));
  const headers = { 'x-api-key': String(key.key) };
  const bytes = photoLikeJpeg(1600, 1067, 85);
  const started = performance.now();
  // An upload refused while the uploads' check pool is full (503, the connection closed mid-body) is sent again.
  const upload = async (name: string): Promise<Record<string, unknown>> => {
    for (let attempt = 1; ; attempt += 1) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), name);
      try {
        const res = await fetch(`${base}/v1/media/upload`, { method: 'POST', headers, body: form });
        if (res.status !== 503 || attempt >= 10) return await json(res);
        await res.body?.cancel();
      } catch (err) {
        if (attempt >= 10) throw err;
      }
      await sleep(500);
    }
  };
  let next = 0;
  const one = async () => {
    for (let i = next++; i < n; i = next++) {
      const up = await upload(`photo-${i}.jpg`);
      const job = await json(await fetch(`${base}/v1/media/sign`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ upload_id: up.upload_id, manifest: { title: `Bench ${i}`, creator: 'Bench' } }) }));
      for (;;) {
        const status = await json(await fetch(`${base}/v1/media/jobs/${String(job.job_id)}?wait=30`, { headers }));
        if (status.status === 'failed') throw new Error(`job failed: ${JSON.stringify(status.error)}`);
        if (status.status !== 'queued' && status.status !== 'processing') break;
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, one));
  return (performance.now() - started) / 1000;
}

function buildTimed(): number {
  const started = performance.now();
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return (performance.now() - started) / 1000;
}

// --- 1. the build ---
console.log(`npm run build (dist/ from scratch, the client included): ${buildTimed().toFixed(1)} s`);
console.log(`machine: load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; idle ${IDLE_MS / 1000} s, ${IMAGES} images\n`);

// --- 2. the Procfile roles ---
async function roles(): Promise<void> {
  const dbName = `bench_memory_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const [port, ocspPort, crlPort, tsaPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-memory-'));
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: `bench-${'x'.repeat(40)}`,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: dbName,
    DATA_DIR: dataDir,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    OCSP_PORT: String(ocspPort),
    CRL_PORT: String(crlPort),
    TSA_PORT: String(tsaPort),
    TSA_URL: `http://127.0.0.1:${tsaPort}`,
    OPS_PORT: '0',
    AUTH_RATE_LIMIT: '1000',
    LOG_LEVEL: 'info',
  };
  // Migrated, with its PKI, before any role starts: each role's start is then what a deployment's restart costs.
  const config = loadConfig(env);
  const knex = await openDatabase(config);
  await initPki({ knex, vault: createKeyVault(config), config });
  await knex.destroy();

  const started: { name: string; role: RoleProcess; seconds: number; readySeconds: number; readyMeans: string; ops: number }[] = [];
  try {
    // The TSA (ocsp) first, as the workers ask it; the scheduler without a chain leaves anchoring off (development).
    const specs: [string, RegExp, string, Record<string, string>, string][] = [
      ['ocsp', /OCSP responder, CRL host and TSA listening/, `http://127.0.0.1:${ocspPort}/health`, {}, 'OCSP, CRL and TSA listening'],
      ['scheduler', /CRL publication scheduled/, '', { NODE_ENV: 'development' }, 'its jobs scheduled'],
      ['web', /API listening/, `http://127.0.0.1:${port}/health`, {}, 'API listening'],
      ['worker', /sign worker started/, '', {}, 'sandboxes loaded, taking jobs'],
    ];
    for (const [name, ready, healthUrl, extra, readyMeans] of specs) {
      // A port known before the spawn: /health is asked from the start, not once the role says it is ready.
      const ops = await freePort();
      const t0 = performance.now();
      const healthy = untilHealthy(healthUrl || `http://127.0.0.1:${ops}/health`).then(() => (performance.now() - t0) / 1000);
      healthy.catch(() => undefined); // the start's own failure is the one reported
      const role = await startProcfileRole(name, { ...env, ...extra, OPS_PORT: String(ops) }, ready);
      const readySeconds = (performance.now() - t0) / 1000;
      started.push({ name, role, seconds: await healthy, readySeconds, readyMeans, ops });
    }
    const measure = async () => {
      const all = processes();
      return Promise.all(
        started.map(async ({ name, role, ops }) => {
          const procs = tree(role.child.pid!, all);
          const own = procs.find((p) => p.pid === role.child.pid)!;
          const children = procs.filter((p) => p !== own);
          return { name, rss: own.rssBytes, heap: await heapOf(ops), children: children.map((c) => ({ kind: kindOf(c.args), rss: c.rssBytes })) };
        }),
      );
    };
    await sleep(IDLE_MS);
    const rest = await measure();
    const signSeconds = await signImages(env.BASE_URL, IMAGES);
    await sleep(IDLE_MS);
    const after = await measure();

    console.log(`Procfile roles (node dist/..., Postgres, Redis); ${IMAGES} images signed in ${signSeconds.toFixed(1)} s`);
    console.log('role       start to /health (limit 3 s)   at rest (limit 150 MiB)   after images, idle (limit 1.2x)');
    for (const [i, { name, seconds, readySeconds, readyMeans }] of started.entries()) {
      const r = rest[i]!;
      const a = after[i]!;
      console.log(
        `${name.padEnd(10)} ${seconds.toFixed(2).padStart(6)} s (${(seconds / ROLE_HEALTH_LIMIT_S).toFixed(2)})       ` +
          `${mib(r.rss).padStart(8)} (${(r.rss / MIB / ROLE_LIMIT_MIB).toFixed(2)})          ${mib(a.rss).padStart(8)} (${(a.rss / r.rss).toFixed(2)}x, ${(a.rss / r.rss / GROWTH_LIMIT).toFixed(2)})`,
      );
      console.log(`           ready (its log line: ${readyMeans}) ${readySeconds.toFixed(2)} s after its start`);
      console.log(`           at rest: ${r.heap}; after: ${a.heap}`);
      const kids = (list: { kind: string; rss: number }[]) => list.map((c) => `${c.kind} ${mib(c.rss)}`).join(', ') || 'none';
      console.log(`           children at rest: ${kids(r.children)}; after: ${kids(a.children)}`);
    }
  } finally {
    for (const { role } of started.reverse()) await role.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// --- 3. npm start ---
async function allInOne(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-memory-start-'));
  const [port, ocsp, crl, tsa, ops] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const t0 = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      DATA_DIR: dataDir,
      PORT: String(port),
      OCSP_PORT: String(ocsp),
      CRL_PORT: String(crl),
      TSA_PORT: String(tsa),
      OPS_PORT: String(ops),
      CHAIN_PORT: '0',
      REDIS_URL: 'redis://127.0.0.1:1', // no Redis, as on a fresh machine: the in-process queue
      AUTH_RATE_LIMIT: '1000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await untilHealthy(`http://127.0.0.1:${port}/health`).catch((err: Error) => {
      throw new Error(`${err.message}\n${out}`);
    });
    const seconds = (performance.now() - t0) / 1000;
    const group = () => processes().filter((p) => p.pgid === child.pid);
    const line = (procs: Proc[]) => procs.map((p) => `${kindOf(p.args)} ${mib(p.rssBytes)}`).join(', ');
    const sum = (procs: Proc[]) => procs.reduce((s, p) => s + p.rssBytes, 0);
    await sleep(IDLE_MS);
    const rest = group();
    const signSeconds = await signImages(`http://127.0.0.1:${port}`, IMAGES);
    await sleep(IDLE_MS);
    const after = group();
    console.log(`\nnpm start (fresh DATA_DIR: PKI and embedded chain created; PGlite; no Redis); ${IMAGES} images signed in ${signSeconds.toFixed(1)} s`);
    console.log(`first start to /health: ${seconds.toFixed(2)} s (limit ${START_HEALTH_LIMIT_S} s: ${(seconds / START_HEALTH_LIMIT_S).toFixed(2)})`);
    console.log(`process group at rest: ${mib(sum(rest))} (limit ${START_LIMIT_MIB} MiB: ${(sum(rest) / MIB / START_LIMIT_MIB).toFixed(2)}): ${line(rest)}`);
    console.log(`after the images, idle: ${mib(sum(after))} (${(sum(after) / sum(rest)).toFixed(2)}x, limit 1.2x: ${(sum(after) / sum(rest) / GROWTH_LIMIT).toFixed(2)}): ${line(after)}`);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone
    }
    await Promise.race([exited, sleep(30_000)]);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (values.only !== 'start') await roles();
if (values.only !== 'roles') await allInOne();
