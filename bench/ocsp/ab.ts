/** ApacheBench runs for the OCSP benchmark: req/s, latency percentiles, errors and the server's CPU per request. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processCpu, processIds } from '../support/process-cpu.js';

export interface AbResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time (user + system, every process of its group) per request, microseconds. */
  cpuUsPerRequest: number;
}

/** CPU milliseconds used so far by every process in a process group, exited (waited-for) children included. */
export function groupCpuMs(pgid: number): number {
  let ms = 0;
  for (const pid of processIds()) {
    const cpu = processCpu(pid);
    if (cpu?.pgid === pgid) ms += cpu.ownMs + cpu.childrenMs;
  }
  return ms;
}

/** Sockets in TIME_WAIT on this machine (/proc/net/sockstat). */
function timeWaitCount(): number {
  return Number(/tw (\d+)/.exec(readFileSync('/proc/net/sockstat', 'utf8'))?.[1] ?? 0);
}

/**
 * Every request without keep-alive leaves a TIME_WAIT socket for 60 s. Past about 28k of them (the ephemeral
 * port range), new connections collide with old ones, SYNs are retransmitted after 1, 2, 4 s... and ab stalls
 * or reports p99 in seconds, whichever server it is driving. So each run starts with few of them left.
 */
async function waitForTimeWait(limit: number): Promise<void> {
  for (let i = 0; i < 90 && timeWaitCount() > limit; i++) await sleep(1000);
}

export function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? 1 : 0, out: `${stdout}\n${stderr}` });
    });
  });
}

/** What ab sends: a POST of `body` (a file in `dir`) as application/ocsp-request, or a GET of `url` as it is. */
export interface AbLoad {
  url: string;
  body?: string;
}

/**
 * One ab run, a new connection per request (ab's default; what the bar measures). ab counts responses whose
 * length differs from the first as "failed" (ECDSA DER signatures vary in length), so only connect, receive and
 * exception failures and non-2xx answers are counted as errors.
 */
export async function ab(load: AbLoad, n: number, c: number, dir: string, cpuMs: () => number): Promise<AbResult> {
  const csv = path.join(dir, 'ab-percentiles.csv');
  const args = ['-q', '-s', '10', '-e', csv, '-n', String(n), '-c', String(c)];
  if (load.body) args.push('-p', load.body, '-T', 'application/ocsp-request');
  await waitForTimeWait(Math.max(0, 26_000 - n));
  const cpuBefore = cpuMs();
  const { code, out } = await run('ab', [...args, load.url], dir);
  const cpuUsPerRequest = ((cpuMs() - cpuBefore) * 1000) / n;
  if (code !== 0) {
    console.warn(`  (ab against ${load.url.slice(0, 40)} failed: ${out.trim().split('\n').at(-1)}; counted as a failed round)`);
    return { rps: 0, p50: NaN, p99: NaN, errors: n, cpuUsPerRequest: NaN };
  }
  const percentile = (p: number) => {
    const row = readFileSync(csv, 'utf8').split('\n').find((l) => l.startsWith(`${p},`));
    return Number(row?.split(',')[1] ?? NaN);
  };
  // "(Connect: 0, Receive: 0, Length: 123, Exceptions: 0)" appears only when something "failed".
  const failed = /\(Connect: (\d+), Receive: (\d+), Length: \d+, Exceptions: (\d+)\)/.exec(out);
  const non2xx = Number(/Non-2xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return {
    rps: Number(/Requests per second:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: percentile(50),
    p99: percentile(99),
    errors: non2xx + (failed ? Number(failed[1]) + Number(failed[2]) + Number(failed[3]) : 0),
    cpuUsPerRequest,
  };
}

/** The round with the median req/s. */
export function median(results: AbResult[]): AbResult {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
}
