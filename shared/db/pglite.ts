import { fork } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { childModule, PROJECT_ROOT } from '../paths.js';

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

/** The installed PGlite's version: an empty database made by one version is copied only for that version. */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
  }
  throw new Error('the installed @electric-sql/pglite has no package.json with a version');
}

/**
 * Where the empty database (initdb's output, the same for every DATA_DIR) is kept once made: beside the installed
 * packages, as other tools keep their caches, named by PGlite's version so an upgrade makes a new one.
 */
export function pgliteTemplateDir(): string {
  return path.join(PROJECT_ROOT, 'node_modules', '.cache', 'media-signing-service', `pglite-${pgliteVersion()}`);
}

/**
 * Runs PGlite's initdb into `dir` in a short-lived process of its own (pglite-init.ts): initdb grows its WASM memory
 * past 600 MB, which a WASM instance keeps, and most of which this process would keep even after closing it.
 */
async function initdbInChild(dir: string): Promise<void> {
  mkdirSync(path.dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const init = childModule(import.meta.url, 'pglite-init');
  const child = fork(init.modulePath, [dir], { execArgv: init.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the embedded database could not be created in ${dir} (exit code ${code})`);
}

/**
 * The empty database to copy, made when missing: `npm run build` makes it, so a new DATA_DIR's database is a copy
 * (a fraction of a second) rather than an initdb (seconds of WASM). Made in a folder of its own and renamed into
 * place, so a template is never seen half-made, whoever makes it at the same time. Undefined when it cannot be kept
 * (a read-only installation): the caller runs initdb itself.
 */
export async function ensurePgliteTemplate(): Promise<string | undefined> {
  const template = pgliteTemplateDir();
  if (existsSync(path.join(template, 'PG_VERSION'))) return template;
  const making = `${template}.making-${process.pid}`;
  try {
    rmSync(making, { recursive: true, force: true });
    await initdbInChild(making);
    try {
      renameSync(making, template);
    } catch (err) {
      // Another process renamed its own template into place first: the same bytes.
      if (!existsSync(path.join(template, 'PG_VERSION'))) throw err;
    }
    return template;
  } catch {
    return undefined;
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
}

/**
 * Creates the embedded database's files in `dir` when they are not there yet: a copy of the empty database
 * (ensurePgliteTemplate), or initdb in a process of its own when no template can be kept. A stopped Postgres data
 * directory is a whole database: copied, it runs as itself. Nothing happens for an existing database.
 */
export async function ensurePgliteDataDir(dir: string): Promise<void> {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  const template = await ensurePgliteTemplate();
  if (!template) return initdbInChild(dir);
  // Copied under another name and renamed: a copy cut short leaves no PG_VERSION in `dir` to be taken for a database.
  const copying = `${dir}.copying-${process.pid}`;
  rmSync(copying, { recursive: true, force: true });
  cpSync(template, copying, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(copying, dir);
}
