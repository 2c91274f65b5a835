import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const AZURITE_BLOB = path.join(ROOT, 'node_modules/.bin/azurite-blob');

/** Azurite's well-known development account (public, documented by Microsoft; not a secret). */
export const DEV_ACCOUNT = 'devstoreaccount1';
export const DEV_ACCOUNT_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export function devConnectionString(port: number): string {
  return `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_ACCOUNT_KEY};BlobEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`;
}

export interface Azurite {
  connectionString: string;
  port: number;
  /** Kills Azurite and waits for it to exit (safe to call twice). */
  stop(): Promise<void>;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`azurite: nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * An Azurite blob service in its own process, in memory only, on a port the OS picks (Azurite reports it on
 * stdout). Call stop() in an `after` hook; as a last resort the child is also killed when this process exits.
 */
export async function startAzurite(timeoutMs = 20_000): Promise<Azurite> {
  // Azurite keeps nothing on disk with --inMemoryPersistence (which excludes --location); run it in a private directory anyway.
  const workdir = mkdtempSync(path.join(tmpdir(), 'azurite-'));
  const child = spawn(
    process.execPath,
    [AZURITE_BLOB, '--blobHost', '127.0.0.1', '--blobPort', '0', '--inMemoryPersistence', '--skipApiVersionCheck', '--silent', '--disableTelemetry'],
    { cwd: workdir, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Last resort when no after hook stopped it (e.g. a failing before hook that had no after hook to pair with).
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      rmSync(workdir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`azurite not listening after ${timeoutMs} ms:\n${out}`)), timeoutMs);
      const check = () => {
        const m = /successfully listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      child.stdout!.on('data', check);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`azurite exited (${child.exitCode ?? child.signalCode}) before listening:\n${out}`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    await waitForPort(port, timeoutMs);
    return { connectionString: devConnectionString(port), port, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
