/**
 * bench/pipeline: N sign requests through the API, BullMQ and two worker processes, to done; against the
 * limit measured in the same run: the same files signed in a plain in-process loop with the same library
 * and the same vault. Prints files/s, p50/p99 latency and the ratio (goal: >= 0.8).
 *
 *   npx tsx bench/pipeline/run.ts [N=60]
 * Needs Postgres (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { buildManifestDefinition, signAsset } from '../../shared/c2pa/index.js';
import { loadConfig } from '../../shared/config.js';
import { openDatabase } from '../../shared/db/index.js';
import { initPki, loadSigningIdentity } from '../../shared/pki/authority.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { noisePng } from '../../test/support/noise-png.js';
import { photoLikeJpeg } from '../support/photo-jpeg.js';
import { startRole, type RoleProcess } from '../../test/support/processes.js';

const N = Number(process.argv[2] ?? 60);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PORT = 3700 + Math.floor(Math.random() * 200);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body;
}

// A newsroom-like mix: camera-sized JPEGs (12 MP, about 5 MB), a web-sized JPEG and a large PNG graphic.
const files: { name: string; mime: 'image/jpeg' | 'image/png'; bytes: Buffer }[] = [
  { name: 'camera.jpg', mime: 'image/jpeg', bytes: photoLikeJpeg() },
  { name: 'web.jpg', mime: 'image/jpeg', bytes: photoLikeJpeg(1600, 1067, 85) },
  { name: 'graphic.png', mime: 'image/png', bytes: noisePng(1200, 800) },
];

const dbName = `bench_${Date.now()}`;
const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
await admin.raw(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${dbName}`;
const env = {
  NODE_ENV: 'production',
  JWT_SECRET: `bench-${'x'.repeat(40)}`,
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  QUEUE_PREFIX: dbName,
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-pipeline-')),
  PORT: String(PORT),
  BASE_URL: `http://127.0.0.1:${PORT}`,
  LOG_LEVEL: 'warn',
  WORKER_CONCURRENCY: process.env.WORKER_CONCURRENCY ?? '2',
  AUTH_RATE_LIMIT: '1000',
};
const config = loadConfig(env);
const knex = await openDatabase(config);
const vault = createKeyVault(config);
await initPki({ knex, vault, config });

// --- the limit: a plain in-process loop, measured before and after the pipeline (the machine is shared) ---
const identity = await loadSigningIdentity({ knex, vault });
const definition = buildManifestDefinition({ title: 'Bench', creator: 'Bench' }, { sourceHasManifest: false });
const signOnce = (f: (typeof files)[number]) =>
  signAsset({ bytes: f.bytes, mimeType: f.mime, manifest: definition, key: identity.key, chainDer: identity.chainDer });
for (const f of files) await signOnce(f); // warm-up
async function loopRate(): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < N; i += 1) await signOnce(files[i % files.length]!);
  return N / ((performance.now() - t0) / 1000);
}
const loopBefore = await loopRate();

// --- the pipeline: API + BullMQ + two worker processes ---
const procs: RoleProcess[] = [];
try {
  procs.push(await startRole('api/main.ts', { ...env, LOG_LEVEL: 'info' }, /API listening/));
  for (let w = 0; w < 2; w += 1) procs.push(await startRole('workers/main.ts', { ...env, LOG_LEVEL: 'info' }, /sign worker started/));
  const base = env.BASE_URL;
  const reg = await json(await fetch(`${base}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: 'bench passphrase 1', org_name: 'Bench' }) }));
  const auth = { authorization: `Bearer ${String(reg.access_token)}` };
  const key = await json(await fetch(`${base}/org/api-keys`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) }));
  const apiKey = { 'x-api-key': String(key.key) };
  const uploads: string[] = [];
  for (let i = 0; i < N; i += 1) {
    const f = files[i % files.length]!;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(f.bytes)]), f.name);
    uploads.push(String((await json(await fetch(`${base}/v1/media/upload`, { method: 'POST', headers: apiKey, body: form }))).upload_id));
  }
  // Warm-up jobs for every worker sandbox, so both runs measure a warm signer.
  for (const u of uploads.slice(0, 4)) {
    const job = await json(await fetch(`${base}/v1/media/sign`, { method: 'POST', headers: { ...apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ upload_id: u, manifest: { title: 'Warm', creator: 'Up' } }) }));
    await json(await fetch(`${base}/v1/media/jobs/${String(job.job_id)}?wait=30`, { headers: apiKey }));
  }

  const start = performance.now();
  const latencies = await Promise.all(
    uploads.map(async (uploadId) => {
      const t0 = performance.now();
      const job = await json(await fetch(`${base}/v1/media/sign`, { method: 'POST', headers: { ...apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ upload_id: uploadId, manifest: { title: 'Bench', creator: 'Bench' } }) }));
      for (;;) {
        const status = await json(await fetch(`${base}/v1/media/jobs/${String(job.job_id)}?wait=30`, { headers: apiKey }));
        if (status.status === 'signed') return performance.now() - t0;
        if (status.status === 'failed') throw new Error(`job failed: ${JSON.stringify(status.error)}`);
      }
    }),
  );
  const pipelineSeconds = (performance.now() - start) / 1000;
  for (const p of procs.splice(0).reverse()) await p.stop();
  const loopAfter = await loopRate();

  const limit = (loopBefore + loopAfter) / 2;
  const pipeRate = N / pipelineSeconds;
  console.log(`files: ${N} (${files.map((f) => `${f.name} ${(f.bytes.length / 1024).toFixed(0)} KiB`).join(', ')}, alternating)`);
  console.log(`in-process loop (limit)     ${limit.toFixed(1)} files/s   (before ${loopBefore.toFixed(1)}, after ${loopAfter.toFixed(1)})`);
  console.log(`API + BullMQ + 2 workers    ${pipeRate.toFixed(1)} files/s   p50 ${percentile(latencies, 50).toFixed(0)} ms   p99 ${percentile(latencies, 99).toFixed(0)} ms (request to signed, all submitted at once)`);
  console.log(`ratio pipeline / loop       ${(pipeRate / limit).toFixed(2)}   (goal >= 0.80)`);
} finally {
  for (const p of procs.reverse()) await p.stop();
  await knex.destroy();
  await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.destroy();
}
