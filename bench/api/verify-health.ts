/**
 * bench/api/verify-health: how long /health takes at its worst while anyone's heavy files are verified publicly,
 * against its limit of 250 ms (issue 18). Starts `npm start` (bin/start.ts: every role in one process, embedded
 * database, a Redis server of its own) of a checkout, then for each load probes GET /health every 25 ms while it runs:
 *
 *   idle       nothing else
 *   photos     5 public verifies (POST /v1/verify) of a 24 MP JPEG, and 3 PNG bombs (117 KB each, 121 MP declared)
 *   svg        2 SVGs of about 170 bytes declaring 9990 x 9990 pixels
 *
 * The peer, probed in turn with /health in the same run: a bare Node HTTP server in a process of its own, answering at
 * once. Its worst latency is what the machine's load alone costs (other work on the same cores), so /health's worst
 * is only the service's fault as far as it exceeds the peer's.
 *
 * Every request comes from a client address of its own (TRUST_PROXY_HOPS=1, X-Forwarded-For), as from different
 * people, so the per-address limit is not what keeps the load down. Prints the worst and p50 /health latency per load,
 * the ratio of the worst to 250 ms, the peer's worst, the service's own longest event-loop delay meanwhile (its /metrics,
 * mss_nodejs_eventloop_lag_max_seconds: CPU contention on a busy machine shows in /health, not here), the verify
 * answers (status, code, seconds), and the memory (RSS) of the service's process and of its verification pool's
 * processes after each load. Before measuring, 15 s of warm-up: 4 verifies of a small JPEG (the pool's processes
 * start) and the major GC of what start-up left.
 *
 *   npx tsx bench/api/verify-health.ts [checkout=.]        e.g. a checkout of the previous commit, for before/after
 *
 * Extra variables are passed on (e.g. VERIFY_POOL_SIZE=1, MAX_IMAGE_PIXELS=100000000); BENCH_NODE_ARGS adds node flags
 * to the service's process (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { largePhotoJpeg, pngBomb, svgDeclaring } from '../../test/support/bomb-images.js';
import { eventLoopLagMaxMs, fmt, p50, probeWhile, withService } from '../support/health-probe.js';

const ROOT = path.resolve(process.argv[2] ?? '.');
const LIMIT_MS = 250;
const PROBE_EVERY_MS = 25;
const PORT = 4100 + Math.floor(Math.random() * 400);

const passOn = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(VERIFY_|MAX_IMAGE_PIXELS|PUBLIC_|REDIS_URL)/.test(k))) as Record<string, string>;

function rssMiB(pid: number): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
  } catch {
    return 0;
  }
}

/** Processes below `pid` (children, grandchildren...) whose command line contains `pattern`. */
function descendantsOf(pid: number, pattern: string): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null);
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const m of rows) {
      if (!below.has(Number(m[1])) && below.has(Number(m[2]))) {
        below.add(Number(m[1]));
        grew = true;
      }
    }
  }
  return rows.filter((m) => Number(m[1]) !== pid && below.has(Number(m[1])) && m[3]!.includes(pattern)).map((m) => Number(m[1]));
}

const base = `http://127.0.0.1:${PORT}`;
let address = 0;

interface Answer {
  status: number;
  code: string;
  seconds: number;
}

async function verify(bytes: Buffer, name: string, type: string): Promise<Answer> {
  address += 1;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const started = performance.now();
  try {
    const res = await fetch(`${base}/v1/verify`, { method: 'POST', body: form, headers: { 'X-Forwarded-For': `198.51.100.${address}` } });
    const body = (await res.json()) as { validation_state?: string; error?: { code: string } };
    return { status: res.status, code: body.error?.code ?? body.validation_state ?? '', seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    return { status: 0, code: (err as Error).message, seconds: (performance.now() - started) / 1000 };
  }
}

const PEER_PORT = PORT + 404;
const probe = (load: Promise<unknown>) => probeWhile(load, `${base}/health`, PEER_PORT, PROBE_EVERY_MS);

async function main() {
  console.log(`checkout ${ROOT}; npm start on :${PORT}; ${Object.entries(passOn).map(([k, v]) => `${k}=${v}`).join(' ') || 'default settings'}`);
  const photos = await Promise.all([1, 2, 3, 4, 5].map((seed) => largePhotoJpeg(6000, 4000, seed)));
  const bomb = pngBomb(11_000, 11_000);
  const svg = svgDeclaring(9990, 9990);
  console.log(`files: 24 MP JPEG ${(photos[0]!.length / 2 ** 20).toFixed(1)} MiB; PNG bomb ${(bomb.length / 1024).toFixed(0)} KiB (121 MP); SVG ${svg.length} bytes (99.8 MP)`);
  await withService(ROOT, PORT, PEER_PORT, { TRUST_PROXY_HOPS: '1', ...passOn }, async (service) => {
    // Warm-up, not measured: start-up leaves a large heap (the embedded database's set-up) that the first load's
    // major GC collects; a few small verifies also start the pool's processes.
    const small = await largePhotoJpeg(1500, 1000);
    await probe(Promise.all([new Promise((resolve) => setTimeout(resolve, 15_000)), ...[1, 2, 3, 4].map((i) => verify(small, `small${i}.jpg`, 'image/jpeg'))]));
    const loads: [string, () => Promise<Answer[]>][] = [
      ['idle', async () => {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        return [];
      }],
      ['photos', () => Promise.all([...photos.map((p, i) => verify(p, `photo${i}.jpg`, 'image/jpeg')), ...[1, 2, 3].map((i) => verify(bomb, `bomb${i}.png`, 'image/png'))])],
      ['svg', () => Promise.all([1, 2].map((i) => verify(svg, `big${i}.svg`, 'image/svg+xml')))],
    ];
    for (const [name, run] of loads) {
      await eventLoopLagMaxMs(PORT + 403);
      const load = run();
      const { health: latencies, peer: peerLatencies } = await probe(load);
      const answers = await load;
      const worst = Math.max(...latencies);
      const peerWorst = Math.max(...peerLatencies);
      const lag = await eventLoopLagMaxMs(PORT + 403);
      const pool = descendantsOf(service.pid, 'verify-process.ts');
      console.log(
        `${name.padEnd(7)} /health worst ${fmt(worst)} (${(worst / LIMIT_MS).toFixed(2)} of the ${LIMIT_MS} ms limit), p50 ${fmt(p50(latencies))}, ${latencies.length} probes; peer worst ${fmt(peerWorst)}; service event-loop delay max ${fmt(lag)}` +
          ` | RSS api ${rssMiB(service.pid)} MiB, pool ${pool.map(rssMiB).join('+') || '-'} MiB | alive ${service.alive()}`,
      );
      if (answers.length) console.log(`        verifies: ${answers.map((a) => `${a.status} ${a.code} ${a.seconds.toFixed(1)}s`).join(', ')}`);
    }
  });
}

await main();
