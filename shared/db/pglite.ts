import { fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { childModule } from '../paths.js';

/**
 * The embedded database's settings (PGlite: Postgres compiled to WASM, inside the `npm start` process). Postgres's
 * 128 MB of shared buffers are WASM memory, which never goes back: 16 MB hold this service's working set (measured
 * in an open database: about 330 MB of RSS with the default, 190 MB with 16 MB), and the files stay in the OS cache.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** The embedded database in `dir`, created beforehand (ensurePgliteDataDir). */
export function openPglite(dir: string): PGlite {
  return new PGlite(dir, { startParams: PGLITE_START_PARAMS });
}

/**
 * Creates the embedded database's files in `dir` when they are not there yet, in a short-lived process of its own
 * (pglite-init.ts): PGlite's initdb grows its WASM memory past 600 MB, which a WASM instance keeps, and most of
 * which this process would keep even after closing it. Nothing happens for an existing database.
 */
export async function ensurePgliteDataDir(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const init = childModule(import.meta.url, 'pglite-init');
  const child = fork(init.modulePath, [dir], { execArgv: init.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the embedded database could not be created in ${dir} (exit code ${code})`);
}
