/**
 * The servers the OCSP benchmark drives: `npm start` of a checkout (this service as the bar runs it), and
 * OpenSSL's own responder (`openssl ocsp -index ... -multi 2`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from './ab.js';

export interface RunningServer {
  /** The OCSP responder's base URL, ending in "/". */
  url: string;
  /** Process group of the server (for its CPU time). */
  pgid: number;
  stop(): Promise<void>;
}

/**
 * Waits until `url` answers `openssl ocsp` for `cert` (issued by `issuer`) with a verified good. (Not a bare TCP
 * probe: a connection closed without a request leaves an OpenSSL 3.0 responder process spinning at 100% CPU for
 * good; see ocsp/README.md.)
 */
export async function waitForGoodAnswer(url: string, dir: string, files: { issuer: string; cert: string; root: string }, tries = 25): Promise<void> {
  let last = '';
  for (let i = 0; i < tries; i++) {
    const check = await run('openssl', ['ocsp', '-issuer', files.issuer, '-cert', files.cert, '-url', url, '-CAfile', files.root], dir);
    last = check.out;
    if (check.out.includes('Response verify OK') && check.out.includes(`${files.cert}: good`)) return;
    await sleep(200);
  }
  throw new Error(`${url} does not answer correctly:\n${last}`);
}

/** Stops a process group: SIGTERM, then SIGKILL after `graceMs`. */
async function stopGroup(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  if ((await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)])) === false) {
    signal('SIGKILL');
    await exited;
  }
  await sleep(200);
  signal('SIGKILL'); // anything of the group left behind
}

const randomPort = () => 20000 + Math.floor(Math.random() * 9000);

/**
 * OpenSSL's responder for the openssl-made chain in `dir` (index.txt, sub-ca.pem, vault/sub-ca.pem), on a free
 * port, once it answers. A fresh one per ab run: OpenSSL 3.0's responder process spins at 100% CPU for good once a
 * client connects and closes without a request (ab does that at the end of a run; seen with 3.0.19 here), so
 * with -multi 2 a second run would measure a crippled or dead responder.
 */
export async function startOpenssl(dir: string): Promise<RunningServer> {
  for (let attempt = 0; ; attempt++) {
    const port = randomPort();
    const child = spawn(
      'openssl',
      ['ocsp', '-index', 'index.txt', '-port', String(port), '-rsigner', 'sub-ca.pem', '-rkey', 'vault/sub-ca.pem',
        '-CA', 'sub-ca.pem', '-rmd', 'sha384', '-multi', '2', '-nmin', '1440'],
      // Not detached: with -multi, openssl makes itself a process group leader (setpgid fails in a new session).
      { cwd: dir, stdio: 'ignore' },
    );
    const url = `http://127.0.0.1:${port}/`;
    const stop = () => stopGroup(child, 3000);
    try {
      await waitForGoodAnswer(url, dir, { issuer: 'sub-ca.pem', cert: 'leaf.pem', root: 'root.pem' });
      if (child.exitCode !== null) throw new Error('openssl ocsp exited (port taken?)');
      return { url, pgid: child.pid!, stop };
    } catch (err) {
      await stop();
      if (attempt >= 2) throw err;
    }
  }
}

/**
 * `npm start` in `checkout` on the embedded defaults (no DATABASE_URL), in a process group of its own, with a
 * fresh DATA_DIR, free ports and a private queue prefix (and `extraEnv`); ready once its OCSP responder answers good for the
 * sub-CA, whose certificate and the root's are written to `dir` as `<name>-root.pem` and `<name>-sub-ca.pem`.
 */
export async function startService(name: string, checkout: string, dir: string, extraEnv: Record<string, string> = {}): Promise<RunningServer & { files: { issuer: string; cert: string; root: string } }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `ocsp-bench-${name}-`));
  const base = randomPort();
  const ports = { PORT: base, OCSP_PORT: base + 1, CRL_PORT: base + 2, TSA_PORT: base + 3, OPS_PORT: base + 4, CHAIN_PORT: base + 5 };
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, QUEUE_PREFIX: `ocsp-bench-${name}-${process.pid}`, LOG_LEVEL: 'warn', ...extraEnv };
  for (const [k, v] of Object.entries(ports)) env[k] = String(v);
  delete env.DATABASE_URL;
  delete env.CHAIN_RPC_URL;
  const child = spawn('npm', ['start'], { cwd: checkout, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const stop = async () => {
    await stopGroup(child, 30_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const files = { issuer: `${name}-root.pem`, cert: `${name}-sub-ca.pem`, root: `${name}-root.pem` };
  const url = `http://127.0.0.1:${ports.OCSP_PORT}/`;
  try {
    // Ready: the OCSP responder and the CA certificates on the CRL host (the latter listens a little later).
    const crl = `http://127.0.0.1:${ports.CRL_PORT}`;
    const certificate = (cer: string) => fetch(`${crl}/${cer}`).then(async (r) => (r.ok ? Buffer.from(await r.arrayBuffer()) : undefined), () => undefined);
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`npm start in ${checkout} exited:\n${stderr}`);
      const ready = await fetch(`${url}health`).then((r) => r.ok, () => false) && (await certificate('sub-ca.cer')) !== undefined;
      if (ready) break;
      if (i > 600) throw new Error(`npm start in ${checkout} did not answer within 10 minutes:\n${stderr}`);
      await sleep(1000);
    }
    for (const [file, cer] of [[files.root, 'root-ca.cer'], [files.cert, 'sub-ca.cer']] as const) {
      const der = (await certificate(cer))!;
      writeFileSync(path.join(dir, file), new X509Certificate(der).toString());
    }
    await waitForGoodAnswer(url, dir, files, 100);
    return { url, pgid: child.pid!, stop, files };
  } catch (err) {
    await stop();
    throw err;
  }
}
