/**
 * OCSP responder benchmark in the form of bar b-ocsp-vs-openssl: this service as `npm start` runs it, before
 * and after a change, against OpenSSL's own responder (`openssl ocsp -index ... -multi 2`) for an openssl-made
 * chain, on this machine, in one sitting, each driven by ApacheBench with 16 clients and a new connection per
 * request, the same request over and over.
 *
 *   npx tsx bench/ocsp/run.ts [--n 10000] [--c 16] [--rounds 3] [--before main] [--after .] [--after-processes 1,2]
 *
 * --before and --after: a checkout directory, or a git ref of this repository, which is checked out in a temporary
 * worktree (with this checkout's node_modules when it locks the same packages, else after npm ci) and removed
 * afterwards. Default: the commit this branch forked from main (git merge-base HEAD main) against this checkout. Each
 * is started with `npm start` on its embedded defaults (no DATABASE_URL), a fresh DATA_DIR and free ports; the
 * request asks for the status of its sub-CA (answered under the root's key, ES384, as OpenSSL's is under the
 * sub-CA's key with -rmd sha384). --after-processes runs the after checkout once per OCSP_PROCESSES value given
 * (default: once, with its default). Scenarios: POST application/ocsp-request and the RFC 5019 GET, without a
 * nonce (what c2pa-rs sends), and a POST with a nonce (ours echoes it within its nonce budget, 50 signatures/s,
 * and answers the rest from its cache without one; OpenSSL signs every response). Rounds alternate the three
 * servers so that background load hits them alike; the median round is shown, with the server's CPU per request
 * (its whole process group, from /proc), which depends less on what else the machine runs.
 *
 * Needs `openssl`, `git` and `ab` (Debian: apt-get install apache2-utils).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeOcspGetPath } from '../../shared/pki/ocsp-request.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { makeOpensslChain } from '../../test/support/openssl-chain.js';
import { ab, groupCpuMs, median, run, type AbLoad, type AbResult } from './ab.js';
import { startOpenssl, startService, type RunningServer } from './servers.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

function stringArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

/** A checkout to run: the directory itself, or a temporary worktree of a git ref (removed by `remove`). */
function checkout(spec: string): { dir: string; label: string; remove(): void } {
  const asDir = path.resolve(spec);
  if (existsSync(path.join(asDir, 'package.json'))) return { dir: asDir, label: asDir === repo ? 'this checkout' : asDir, remove: () => {} };
  const dir = mkdtempSync(path.join(tmpdir(), 'ocsp-bench-checkout-'));
  const commit = spawnSync('git', ['rev-parse', '--short', spec], { cwd: repo, encoding: 'utf8' }).stdout.trim();
  const added = spawnSync('git', ['worktree', 'add', '--detach', dir, spec], { cwd: repo, encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`git worktree add ${spec}: ${added.stderr}`);
  // This checkout's packages when the ref locks the same ones, else its own (npm ci: a few minutes).
  if (readFileSync(path.join(dir, 'package-lock.json'), 'utf8') === readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) {
    symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  } else {
    console.log(`${spec} locks other packages than this checkout: npm ci in its worktree`);
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
    if (ci.status !== 0) throw new Error(`npm ci for ${spec}: ${ci.stderr}`);
  }
  return {
    dir,
    label: `${spec} (${commit})`,
    remove: () => {
      spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: repo });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes an OCSP request for `cert` (issued by `issuer`) made by openssl; returns the file name. */
async function opensslRequest(dir: string, name: string, issuer: string, cert: string, nonce: boolean): Promise<string> {
  const made = await run('openssl', ['ocsp', ...(nonce ? [] : ['-no_nonce']), '-issuer', issuer, '-cert', cert, '-reqout', name], dir);
  if (made.code !== 0) throw new Error(made.out);
  return name;
}

type Scenario = 'POST' | 'GET' | 'POST, nonce';
const SCENARIOS: Scenario[] = ['POST', 'GET', 'POST, nonce'];

/** The three ab loads of one server. */
async function loads(dir: string, url: string, prefix: string, issuer: string, cert: string): Promise<Record<Scenario, AbLoad>> {
  const plain = await opensslRequest(dir, `${prefix}-req.der`, issuer, cert, false);
  const nonce = await opensslRequest(dir, `${prefix}-req-nonce.der`, issuer, cert, true);
  const getPath = encodeOcspGetPath(readFileSync(path.join(dir, plain)));
  return { POST: { url, body: plain }, GET: { url: `${url}${getPath.slice(1)}`, body: undefined }, 'POST, nonce': { url, body: nonce } };
}

const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

async function main(): Promise<void> {
  const n = numberArg('n', 10000);
  const c = numberArg('c', 16);
  const rounds = numberArg('rounds', 3);
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

  const base = spawnSync('git', ['merge-base', 'HEAD', 'main'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
  const checkouts = { before: checkout(stringArg('before', base || 'main')), after: checkout(stringArg('after', repo)) };
  const afterProcesses = stringArg('after-processes', '').split(',').filter(Boolean);
  if (afterProcesses.some((p) => !/^\d+$/.test(p))) throw new Error('--after-processes takes a comma-separated list of whole numbers');
  const sides: { label: string; checkout: string; env: Record<string, string> }[] = [
    { label: 'before', checkout: checkouts.before.dir, env: {} },
    ...(afterProcesses.length === 0
      ? [{ label: 'after', checkout: checkouts.after.dir, env: {} }]
      : afterProcesses.map((p) => ({ label: `after/${p}`, checkout: checkouts.after.dir, env: { OCSP_PROCESSES: p } }))),
  ];
  const services: (RunningServer & { label: string; loads: Record<Scenario, AbLoad> })[] = [];
  try {
    const opensslLoads = await loads(dir, 'http://127.0.0.1:0/', 'openssl', 'sub-ca.pem', 'leaf.pem');
    for (const side of sides) {
      const name = side.label.replace('/', '-p');
      const service = await startService(name, side.checkout, dir, side.env);
      services.push({ ...service, label: side.label, loads: await loads(dir, service.url, name, service.files.issuer, service.files.cert) });
    }
    console.log(`ab -n ${n} -c ${c}, a new connection per request; ${rounds} alternating rounds, median round shown; openssl ocsp -multi 2; ${process.version}`);
    console.log(`before: npm start of ${checkouts.before.label}; after: npm start of ${checkouts.after.label}${afterProcesses.length ? ` (after/N: OCSP_PROCESSES=N)` : ''}`);

    for (const scenario of SCENARIOS) {
      const results = new Map<string, AbResult[]>([...services.map((s) => [s.label, []] as [string, AbResult[]]), ['openssl', []]]);
      for (const service of services) await ab(service.loads[scenario], Math.min(n, 2000), c, dir, () => groupCpuMs(service.pgid)); // warm-up (JIT, caches)
      for (let r = 0; r < rounds; r++) {
        for (const service of services) results.get(service.label)!.push(await ab(service.loads[scenario], n, c, dir, () => groupCpuMs(service.pgid)));
        const openssl = await startOpenssl(dir); // a fresh one per run (see startOpenssl)
        try {
          const load = opensslLoads[scenario];
          results.get('openssl')!.push(await ab({ ...load, url: load.url.replace('http://127.0.0.1:0/', openssl.url) }, n, c, dir, () => groupCpuMs(openssl.pgid)));
        } finally {
          await openssl.stop();
        }
      }
      const m = new Map([...results].map(([label, rs]) => [label, median(rs)]));
      const reference = m.get('openssl')!;
      console.log(`\n${scenario}`);
      console.log('  server        req/s   ratio to openssl   p50 ms   p99 ms   server CPU us/req   errors   rounds req/s');
      for (const [label, x] of m) {
        const ratio = label === 'openssl' ? '' : `${fmt(x.rps / reference.rps, 2)}x`;
        console.log(
          `  ${label.padEnd(11)} ${fmt(x.rps).padStart(7)}   ${ratio.padStart(16)}   ${fmt(x.p50, 1).padStart(6)}   ${fmt(x.p99, 1).padStart(6)}   ${fmt(x.cpuUsPerRequest).padStart(17)}   ${String(x.errors).padStart(6)}   ${results.get(label)!.map((y) => fmt(y.rps)).join(', ')}`,
        );
      }
      for (const service of services) {
        const x = m.get(service.label)!;
        console.log(`  ${service.label}: ${fmt(x.rps / reference.rps, 2)}x OpenSSL's req/s, p99 ${fmt(x.p99, 1)} ms against ${fmt(reference.p99, 1)} ms (${x.p99 < reference.p99 ? 'lower' : 'NOT lower'})`);
      }
    }
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    checkouts.before.remove();
    checkouts.after.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
