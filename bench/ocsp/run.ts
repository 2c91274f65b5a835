/**
 * OCSP responder benchmark: this service's responder against OpenSSL's own (`openssl ocsp -index ... -multi 2`)
 * for the same openssl-made chain, on this machine, in one run, driven by ApacheBench with the same request.
 *
 *   npx tsx bench/ocsp/run.ts [--n 10000] [--c 16] [--rounds 3]
 *
 * Needs `openssl` and `ab` (Debian: apt-get install apache2-utils). Rounds alternate the two servers so that
 * background load hits both alike; the median round is reported. Scenarios:
 *   - no nonce, new connection per request (ab default; the only way OpenSSL's responder serves, it closes
 *     every connection): the RFC 5019 case, what c2pa-rs sends;
 *   - no nonce, the same command with keep-alive offered (ab -k) to both: ours keeps connections open (as behind a
 *     reverse proxy with upstream keep-alive); OpenSSL's answers HTTP/1.0 and closes every connection, so ab opens
 *     a new one per request there (checked with OpenSSL 3.0.19: ab -k completes, "Keep-Alive requests: 0");
 *   - nonce, new connection per request: every request asks for a fresh signature; ours answers at most its
 *     nonce budget (default 50/s) with one and the rest from the cache without it, so this runs twice: with the
 *     default budget, and with the rate cap lifted so that ours signs every response as OpenSSL does.
 * ab counts responses whose length differs from the first as "failed" (ECDSA DER signatures vary in length),
 * so only connect/receive/exception failures and non-2xx answers are reported as errors.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { OcspResponder } from '../../ocsp/responder.js';
import { listenServer } from '../../ocsp/http-server.js';
import { createOcspServer } from '../../ocsp/server.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { processCpu, processIds } from '../support/process-cpu.js';

interface AbResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time (user + system, all processes/threads of the server) per request, microseconds. */
  cpuUsPerRequest: number;
}

/** CPU milliseconds used so far by every process in a process group, exited (waited-for) children included. */
function groupCpuMs(pgid: number): number {
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

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? 1 : 0, out: `${stdout}\n${stderr}` });
    });
  });
}

async function ab(url: string, body: string, n: number, c: number, keepAlive: boolean, dir: string, cpuMs: () => number): Promise<AbResult> {
  const csv = path.join(dir, 'ab-percentiles.csv');
  const args = ['-q', '-s', '10', '-e', csv, '-p', body, '-T', 'application/ocsp-request', '-n', String(n), '-c', String(c)];
  if (keepAlive) args.push('-k');
  await waitForTimeWait(Math.max(0, 26_000 - n));
  const cpuBefore = cpuMs();
  const { code, out } = await run('ab', [...args, url], dir);
  const cpuUsPerRequest = ((cpuMs() - cpuBefore) * 1000) / n;
  if (code !== 0) {
    console.warn(`  (ab against ${url} failed: ${out.trim().split('\n').at(-1)}; counted as a failed round)`);
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

function median(results: AbResult[]): AbResult {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Waits until `url` answers `openssl ocsp` correctly. (Not a bare TCP probe: a connection closed without a
 * request leaves an OpenSSL 3.0 responder process spinning at 100% CPU for good; see ocsp/README.md.)
 */
async function waitForGoodAnswer(url: string, dir: string): Promise<void> {
  let last = '';
  for (let i = 0; i < 25; i++) {
    const check = await run('openssl', ['ocsp', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-url', url, '-CAfile', 'root.pem'], dir);
    last = check.out;
    if (check.out.includes('Response verify OK') && /leaf\.pem: good/.test(check.out)) return;
    await sleep(200);
  }
  throw new Error(`${url} does not answer correctly:\n${last}`);
}

/**
 * Starts `openssl ocsp` as a responder on a free port and waits until it answers. A fresh one per ab run:
 * OpenSSL 3.0's responder process spins at 100% CPU for good once a client connects and closes without a
 * request (ab does that at the end of a run; seen with 3.0.19 here), so with -multi 2 a second run would
 * measure a crippled or dead responder.
 */
async function startOpenssl(dir: string): Promise<{ url: string; pgid: number; stop(): Promise<void> }> {
  for (let attempt = 0; ; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 10000);
    const child: ChildProcess = spawn(
      'openssl',
      ['ocsp', '-index', 'index.txt', '-port', String(port), '-rsigner', 'sub-ca.pem', '-rkey', 'vault/sub-ca.pem',
        '-CA', 'sub-ca.pem', '-rmd', 'sha384', '-multi', '2', '-nmin', '1440'],
      // Not detached: with -multi, openssl makes itself a process group leader (setpgid fails in a new session).
      { cwd: dir, stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM'); // the parent and its -multi children
      } catch {
        // already gone
      }
      await Promise.race([exited, sleep(3000)]);
    };
    const url = `http://127.0.0.1:${port}/`;
    try {
      await waitForGoodAnswer(url, dir);
      if (child.exitCode !== null) throw new Error('openssl ocsp exited (port taken?)');
      return { url, pgid: child.pid!, stop };
    } catch (err) {
      await stop();
      if (attempt >= 2) throw err;
    }
  }
}

async function main(): Promise<void> {
  const n = arg('n', 10000);
  const c = arg('c', 16);
  const rounds = arg('rounds', 3);
  if (spawnSync('ab', ['-V']).error) {
    console.error('ab (ApacheBench) is not installed: apt-get install apache2-utils');
    process.exit(1);
  }

  const chain = await makeOpensslChain();
  const dir = chain.dir;
  const leafSerial = normalizeSerialHex(/serial=([0-9A-F]+)/i.exec((await run('openssl', ['x509', '-in', 'leaf.pem', '-noout', '-serial'], dir)).out)![1]!);

  // OpenSSL's responder: index.txt with the leaf as valid, signing with the sub-CA key (as this service does).
  const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  writeFileSync(path.join(dir, 'index.txt'), `V\t${expiry}\t\t${leafSerial.toUpperCase()}\tunknown\t/CN=leaf\n`);

  // Two instances of ours: default settings, and one whose nonce rate cap is lifted (every nonce signed).
  const instances = await Promise.all(
    [{}, { nonceSignaturesPerSecond: 1e9 }].map(async (extra) => {
      const responder = new OcspResponder({
        issuers: [{ certificate: chain.der.subCa, key: chain.keys.subCa }, { certificate: chain.der.root, key: chain.keys.root }],
        lookupStatus: async () => ({ status: 'good' as const }),
        ...extra,
      });
      const server = createOcspServer(responder);
      const { port } = await listenServer(server, 0, '127.0.0.1');
      return { responder, server, url: `http://127.0.0.1:${port}/` };
    }),
  );

  try {
    for (const nonce of [false, true]) {
      const file = nonce ? 'req-nonce.der' : 'req.der';
      const made = await run('openssl', ['ocsp', ...(nonce ? [] : ['-no_nonce']), '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-reqout', file], dir);
      if (made.code !== 0) throw new Error(made.out);
    }
    for (const instance of instances) await waitForGoodAnswer(instance.url, dir);

    /** One ab run against a freshly started OpenSSL responder (see startOpenssl for why fresh). */
    const abOpenssl = async (body: string, count: number, keepAlive: boolean): Promise<AbResult> => {
      const openssl = await startOpenssl(dir);
      try {
        return await ab(openssl.url, body, count, c, keepAlive, dir, () => groupCpuMs(openssl.pgid));
      } finally {
        await openssl.stop();
      }
    };

    const [normal, uncapped] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const scenarios = [
      { name: 'no nonce, new connection per request', body: 'req.der', keepAlive: false, ours: normal },
      { name: 'no nonce, ab -k for both (ours keeps connections; OpenSSL closes each one)', body: 'req.der', keepAlive: true, ours: normal },
      { name: 'nonce, new connection per request (ours: default nonce budget, 50 signatures/s)', body: 'req-nonce.der', keepAlive: false, ours: normal },
      { name: 'nonce, new connection per request (ours: nonce rate cap lifted, every response signed)', body: 'req-nonce.der', keepAlive: false, ours: uncapped },
    ];
    console.log(`ab -n ${n} -c ${c}, ${rounds} alternating rounds each, median round shown; openssl ocsp -multi 2; ${process.version}`);
    for (const s of scenarios) {
      const results = { ours: [] as AbResult[], openssl: [] as AbResult[] };
      const { responder, url: ours } = s.ours;
      await ab(ours, s.body, Math.min(n, 2000), c, s.keepAlive, dir, ownCpuMs); // warm-up (JIT, cache)
      const before = responder.stats();
      for (let r = 0; r < rounds; r++) {
        results.ours.push(await ab(ours, s.body, n, c, s.keepAlive, dir, ownCpuMs));
        results.openssl.push(await abOpenssl(s.body, n, s.keepAlive));
      }
      const after = responder.stats();
      const o = median(results.ours);
      const t = median(results.openssl);
      console.log(`\n${s.name}`);
      console.log('  server    req/s     p50 ms   p99 ms   server CPU us/req   errors');
      for (const [label, x] of [['ours', o], ['openssl', t]] as const) {
        console.log(
          `  ${label.padEnd(8)} ${x.rps.toFixed(0).padStart(6)}   ${x.p50.toFixed(1).padStart(6)}   ${x.p99.toFixed(1).padStart(6)}   ${x.cpuUsPerRequest.toFixed(0).padStart(17)}   ${x.errors}`,
        );
      }
      console.log(`  ratio ours/openssl: ${(o.rps / t.rps).toFixed(2)}x req/s, p99 ${(o.p99 / t.p99).toFixed(2)}x, CPU per request ${(o.cpuUsPerRequest / t.cpuUsPerRequest).toFixed(2)}x`);
      console.log(`  ours: ${after.signatures - before.signatures} vault signatures, ${after.nonceResponses - before.nonceResponses} nonce echoed, ${after.nonceFallbacks - before.nonceFallbacks} nonce fallbacks to cached`);
      console.log(`  rounds ours req/s: ${results.ours.map((x) => x.rps.toFixed(0)).join(', ')}; openssl: ${results.openssl.map((x) => x.rps.toFixed(0)).join(', ')}`);
    }
  } finally {
    for (const { server } of instances) {
      server.closeAllConnections();
      server.close();
    }
  }
}

await main();
