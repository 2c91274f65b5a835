/**
 * bench/hostile/fuzz-requests: how long the API takes to answer the request fuzzer's hostile bodies for the sidecar
 * and remote paths (test/support/request-fuzz.ts: box soups, deep nesting, hostile sidecar stores, files naming remote
 * manifests), against an upper bound of 2 s per request ("a 600,000-box file with a sidecar is answered within a few
 * seconds", issue 29). The test (test/api/request-fuzz.test.ts) checks the answers; this measures them.
 *
 * The web role runs as its own process (api/main.ts) on a fresh Postgres database and the shared Redis, as the fuzz
 * test runs it; requests go over raw sockets, one at a time, signed in where the route needs it. First a fixed matrix
 * (soups of 2,000, 10,001 and 600,000 boxes, 40 udta deep, each remote-manifest file; each without a manifest part and
 * with each sidecar store), then BENCH_RANDOM (40) hostile cases drawn by fast-check (seed BENCH_SEED or random,
 * printed). Before them, 4 verifies of the plain MP4, not counted: the verification pool starts its processes on first
 * use. Prints each answer's status, seconds and ratio to the bound, then the worst and the median.
 *
 *   npx tsx bench/hostile/fuzz-requests.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { loadConfig } from '../../shared/config.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { TEST_REDIS_URL } from '../../test/support/api.js';
import { freePort, hostileTrafficEnv, startApiProcess } from '../../test/support/api-process.js';
import { createTestDatabase } from '../../test/support/database.js';
import { makeHostileMedia } from '../../test/support/hostile-media.js';
import { sendRaw } from '../../test/support/raw-http.js';
import { hostileFile, renderHostileFile, renderSidecar, requestBytes, sidecarChoice, type HostileFile, type SidecarChoice } from '../../test/support/request-fuzz.js';

const BOUND_S = 2;
const RANDOM = Number(process.env.BENCH_RANDOM ?? 40);
const SEED = process.env.BENCH_SEED !== undefined ? Number(process.env.BENCH_SEED) : Math.floor(Math.random() * 2 ** 31);

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-fuzz-requests-'));
const db = await createTestDatabase();
const port = await freePort();
const env = hostileTrafficEnv({ databaseUrl: db.url, redisUrl: TEST_REDIS_URL, dataDir, port, queuePrefix: `bench-fuzz-${process.pid}` });
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
await initPki({ knex: db.knex, vault: createKeyVault(config), config });
const api = await startApiProcess(env);
const hostile = await makeHostileMedia(dataDir);
try {
  const registered = await fetch(`http://127.0.0.1:${port}/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'a long enough passphrase', org_name: 'Bench Org' }),
  });
  const access = ((await registered.json()) as { access_token: string }).access_token;

  const matrix: [HostileFile, SidecarChoice | null][] = [];
  const files: HostileFile[] = [
    { kind: 'soup', count: 2_000, size: 8, type: 'junk' },
    { kind: 'soup', count: 10_001, size: 8, type: 'junk' },
    { kind: 'soup', count: 600_000, size: 4, type: 'junk' },
    { kind: 'nested', depth: 40, count: 10 },
    ...hostile.remoteFiles.map((_, pick): HostileFile => ({ kind: 'remote', pick })),
  ];
  for (const file of files) for (const manifest of [null, ...hostile.sidecars.map((_, pick): SidecarChoice => ({ kind: 'store', pick }))]) matrix.push([file, manifest]);
  const drawn = fc.sample(fc.tuple(hostileFile, fc.option(sidecarChoice, { nil: null })), { seed: SEED, numRuns: RANDOM });

  const seconds: number[] = [];
  const row = async (file: HostileFile, manifest: SidecarChoice | null, target: string) => {
    const f = renderHostileFile(hostile, file);
    const sidecar = manifest && renderSidecar(hostile, manifest);
    const parts = [Buffer.from(`--XX\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`), f.bytes, Buffer.from('\r\n')];
    if (sidecar) parts.push(Buffer.from('--XX\r\nContent-Disposition: form-data; name="manifest"; filename="s.c2pa"\r\nContent-Type: application/c2pa\r\n\r\n'), sidecar.bytes, Buffer.from('\r\n'));
    parts.push(Buffer.from('--XX--\r\n'));
    const body = Buffer.concat(parts);
    const headers: [string, string][] = [['Host', `127.0.0.1:${port}`], ['Connection', 'close'], ['Content-Type', 'multipart/form-data; boundary=XX'], ['Content-Length', String(body.length)]];
    if (target === '/v1/media/verify') headers.push(['Authorization', `Bearer ${access}`]);
    const started = process.hrtime.bigint();
    const outcome = await sendRaw(port, requestBytes({ method: 'POST', target, headers, body }), { kind: 'full' }, 200_000);
    const s = Number(process.hrtime.bigint() - started) / 1e9;
    seconds.push(s);
    const res = outcome.response;
    let answer = 'no answer';
    if (res) {
      const json = JSON.parse(res.body.toString('utf8')) as { validation_state?: string; error?: { code: string }; status?: { failure: string[] } };
      answer = `${res.status} ${json.error?.code ?? `${json.validation_state} ${(json.status?.failure ?? []).filter((c) => c.startsWith('assertion.')).join(' ')}`}`;
    }
    const what = `${target.padEnd(16)} ${f.summary}${sidecar ? `, ${sidecar.summary}` : ''}`;
    console.log(`${what.slice(0, 92).padEnd(92)} ${s.toFixed(3).padStart(7)} s ${(s / BOUND_S).toFixed(2).padStart(6)}  ${answer}`);
  };

  console.log(`bound ${BOUND_S} s per request; random cases: seed ${SEED} (BENCH_SEED=${SEED} replays)\n`);
  for (let i = 0; i < 4; i += 1) await row({ kind: 'soup', count: 0, size: 8, type: 'junk' }, null, i % 2 ? '/v1/media/verify' : '/v1/verify');
  seconds.length = 0;
  console.log('(warm-up above: not counted)');
  for (const [file, manifest] of matrix) for (const target of ['/v1/verify', '/v1/media/verify']) await row(file, manifest, target);
  for (const [i, [file, manifest]] of drawn.entries()) await row(file, manifest, i % 2 ? '/v1/media/verify' : '/v1/verify');
  const sorted = [...seconds].sort((a, b) => a - b);
  const worst = sorted.at(-1)!;
  console.log(`\n${seconds.length} requests: worst ${worst.toFixed(3)} s (ratio to ${BOUND_S} s: ${(worst / BOUND_S).toFixed(2)}), median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} s`);
} finally {
  hostile.cleanup();
  await api.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
