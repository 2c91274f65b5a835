/**
 * bench/uploads/resumable: a large WAV uploaded to the real API (Postgres, the file store) three ways in one run:
 * one multipart POST /v1/media/upload (the peer), a tus upload (tus-js-client, 64 MiB PATCHes), and a tus upload whose
 * connection a local proxy cuts half-way. Prints seconds, MB/s, the ratio to the multipart upload and the growth of
 * this process's RSS (the API runs in it). Goal: tus at 0.8 or more of the multipart upload's speed, and the cut one
 * sends at most the file once plus what was in flight, with RSS growth bounded whatever the size.
 *
 *   npx tsx bench/uploads/resumable.ts [MiB=256] [local|azure]
 * Needs Postgres and Redis as the tests do (and, for azure, nothing else: Azurite ships in node_modules).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { registerAccount, startTestApi } from '../../test/support/api.js';
import { startAzurite } from '../../test/support/azurite.js';
import { startCuttingProxy } from '../../test/support/cutting-proxy.js';

const MIB = Number(process.argv[2] ?? 256);
const MODE = process.argv[3] === 'azure' ? 'azure' : 'local';

function tusUpload(endpoint: string, file: string, size: number, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(createReadStream(file), {
      endpoint,
      uploadSize: size,
      chunkSize: 64 * 1024 * 1024,
      retryDelays: [0, 200, 1000],
      headers: { Authorization: `Bearer ${token}` },
      metadata: { filename: 'bench.wav' },
      onSuccess: () => resolve(),
      onError: reject,
    });
    upload.start();
  });
}

async function timed(what: () => Promise<void>): Promise<{ seconds: number; rssGrowthMiB: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  await what();
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  return { seconds, rssGrowthMiB: (peak - base) / 2 ** 20 };
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-resumable-'));
  const azurite = MODE === 'azure' ? await startAzurite() : undefined;
  const env: Record<string, string> = { MAX_UPLOAD_BYTES_AUDIO: String(600 * 2 ** 20) };
  if (azurite) Object.assign(env, { AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString, BLOB_CONTAINER: `bench-${Date.now().toString(36)}` });
  const api = await startTestApi(env, { issuer: false });
  const server = http.createServer(api.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const proxy = await startCuttingProxy(port);
  try {
    const acc = await registerAccount(api.app, 'Bench');
    const file = path.join(work, 'bench.wav');
    // 48 kHz stereo 16-bit noise: 192,000 bytes a second.
    const seconds = Math.ceil((MIB * 2 ** 20) / 192_000);
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `anoisesrc=d=${seconds}:r=48000`, '-ac', '2', '-c:a', 'pcm_s16le', '-y', file]);
    const size = statSync(file).size;
    const mb = size / 1e6;
    process.stdout.write(`${MODE} storage; a ${(size / 2 ** 20).toFixed(0)} MiB WAV; the API runs in this process (machine shared: figures are noisy)\n\n`);

    const multipart = await timed(async () => {
      const form = new FormData();
      form.append('file', await openAsBlob(file), 'bench.wav');
      const res = await fetch(`http://127.0.0.1:${port}/v1/media/upload`, { method: 'POST', headers: { Authorization: `Bearer ${acc.access}` }, body: form });
      if (res.status !== 201) throw new Error(`multipart upload: ${res.status} ${await res.text()}`);
    });
    const resumable = await timed(() => tusUpload(`http://127.0.0.1:${port}/v1/media/resumable-uploads`, file, size, acc.access));
    proxy.cutAfter(Math.floor(size / 2));
    const cut = await timed(() => tusUpload(`http://127.0.0.1:${proxy.port}/v1/media/resumable-uploads`, file, size, acc.access));
    if (proxy.cuts !== 1) throw new Error('the proxy did not cut the upload');

    const row = (name: string, r: { seconds: number; rssGrowthMiB: number }) =>
      `${name.padEnd(34)} ${r.seconds.toFixed(2).padStart(7)} s ${(mb / r.seconds).toFixed(0).padStart(6)} MB/s ${(multipart.seconds / r.seconds).toFixed(2).padStart(6)}x ${r.rssGrowthMiB.toFixed(0).padStart(6)} MiB`;
    process.stdout.write(`${'upload'.padEnd(34)} ${'time'.padStart(9)} ${'speed'.padStart(11)} ${'vs POST'.padStart(7)} ${'RSS +'.padStart(10)}\n`);
    process.stdout.write(`${row('POST /v1/media/upload (multipart)', multipart)}\n${row('tus, 64 MiB PATCHes', resumable)}\n${row('tus, connection cut half-way', cut)}\n`);
    process.stdout.write(`\ngoal: tus >= 0.80x of the multipart upload: ${multipart.seconds / resumable.seconds >= 0.8 ? 'met' : 'NOT met'}\n`);
  } finally {
    await proxy.close();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
    await azurite?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
