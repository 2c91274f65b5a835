/**
 * What the /health benches share: `npm start` (bin/start.ts: every role in one process, embedded database) of a
 * checkout on a port of its own, a peer (a bare Node HTTP server in its own process, answering at once: its latency
 * is what the machine's load alone costs), and probing /health and the peer in turn while a load runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPrivateRedis } from '../../test/support/private-redis.js';

export interface BenchService {
  pid: number;
  port: number;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `npm start` of the checkout at `root` on `port` (OCSP, CRL, TSA and operator ports above it), with Redis at
 * `redisUrl` and `env` added; resolves once it logs `service ready`. BENCH_NODE_ARGS adds node flags to its process.
 */
async function startService(root: string, port: number, dataDir: string, redisUrl: string, env: Record<string, string>): Promise<BenchService> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, 'bin/start.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      OCSP_PORT: String(port + 400),
      CRL_PORT: String(port + 401),
      TSA_PORT: String(port + 402),
      OPS_PORT: String(port + 403),
      CHAIN_PORT: '0',
      LOG_LEVEL: 'info',
      REDIS_URL: redisUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 1200 && !/service ready/.test(out); i += 1) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!/service ready/.test(out)) throw new Error(`npm start not ready after 120 s:\n${out}`);
  return {
    pid: child.pid!,
    port,
    alive: () => child.exitCode === null,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Runs `bench` with `npm start` of `root` on `port` (a Redis of its own: /health pings it, and the machine's shared one
 * answers other people's tests; a data directory of its own) and the peer on `peerPort`; stops and removes them after.
 */
export async function withService<T>(root: string, port: number, peerPort: number, env: Record<string, string>, bench: (service: BenchService) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-health-'));
  const redis = await startPrivateRedis();
  const peer = await startPeer(peerPort);
  try {
    const service = await startService(root, port, dataDir, redis.url, env);
    try {
      return await bench(service);
    } finally {
      await service.stop();
    }
  } finally {
    await redis.stop();
    peer.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The peer: a bare HTTP server in a process of its own, on `port`. */
async function startPeer(port: number): Promise<{ stop(): void }> {
  const child = spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1', () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return { stop: () => child.kill('SIGKILL') };
}

/** Milliseconds a GET of `url` takes to its last byte; Infinity when it fails. */
async function timed(url: string): Promise<number> {
  const started = performance.now();
  const ok = await fetch(url).then(async (r) => (await r.arrayBuffer(), r.ok), () => false);
  return ok ? performance.now() - started : Infinity;
}

/** Probes `healthUrl` and the peer in turn every `everyMs` until `load` settles (ms; a failed probe counts as Infinity). */
export async function probeWhile(load: Promise<unknown>, healthUrl: string, peerPort: number, everyMs: number): Promise<{ health: number[]; peer: number[] }> {
  let done = false;
  void load.finally(() => (done = true));
  const health: number[] = [];
  const peer: number[] = [];
  while (!done) {
    health.push(await timed(healthUrl));
    peer.push(await timed(`http://127.0.0.1:${peerPort}/`));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return { health, peer };
}

/** The service's longest event-loop delay since the previous call (prom-client resets it at every scrape). */
export async function eventLoopLagMaxMs(opsPort: number): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${opsPort}/metrics`).then((r) => r.text(), () => '');
  const m = /^mss_nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return m ? Number(m[1]) * 1000 : NaN;
}

export const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
export const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'no answer');
