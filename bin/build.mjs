#!/usr/bin/env node
/**
 * `npm run build`: every server-side TypeScript file (the roles, bin/, shared/, migrations/) to JavaScript in dist/,
 * one .js and one .js.map per .ts, the same tree, so that `node dist/...` runs with no loader. esbuild transforms
 * each file on its own, as tsx does when the tests run the TypeScript: the same output, and about a second for
 * the whole tree (`npm run typecheck` is the type check). Plain JavaScript because it runs before anything is built.
 *
 *   node bin/build.mjs             build dist/ afresh
 *   node bin/build.mjs --if-stale  only when dist/ is missing or older than a source file (npm start)
 *   node bin/build.mjs --watch     build, then again whenever a source file changes
 * Each also makes the embedded database's empty cluster when it is missing (emptyDatabase below).
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['api', 'workers', 'scheduler', 'ocsp', 'shared', 'migrations', 'bin'];
/** Files whose change makes dist/ stale besides the sources: the settings esbuild reads, this script. */
const INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'bin/build.mjs'];
const DIST = path.join(ROOT, 'dist');
/** Written last: its time is the build's, and its absence means an unfinished one. */
const STAMP = path.join(DIST, '.built');

/** Every .ts file under the source folders, relative to the root (.d.ts excluded: nothing to emit). */
function sources() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(rel);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return found;
}

/** Whether dist/ is missing, unfinished, or older than a source file (mtimes: a few milliseconds). */
function stale(files) {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  return [...files, ...INPUTS].some((f) => statSync(path.join(ROOT, f)).mtimeMs > built);
}

/** Builds into a fresh folder and swaps it in, so that a removed source leaves no module behind in dist/. */
async function build(files) {
  const started = Date.now();
  const { build: esbuild } = await import('esbuild');
  const next = `${DIST}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  await esbuild({
    entryPoints: files.map((f) => path.join(ROOT, f)),
    outdir: next,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Maps point at the .ts files in the repository, not at copies inside dist/.
    sourcesContent: false,
    logLevel: 'warning',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
  });
  writeFileSync(path.join(next, '.built'), `${new Date().toISOString()}\n`);
  const old = `${DIST}.old-${process.pid}`;
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(next, DIST);
  rmSync(old, { recursive: true, force: true });
  process.stderr.write(`[build] ${files.length} files to dist/ in ${Date.now() - started} ms\n`);
}

const mode = process.argv[2];
if (mode !== undefined && mode !== '--if-stale' && mode !== '--watch') {
  process.stderr.write('usage: node bin/build.mjs [--if-stale | --watch]\n');
  process.exit(2);
}
/**
 * The embedded database's empty cluster (PGlite's initdb: seconds of WASM, the same for every DATA_DIR), made once
 * per installed PGlite rather than at each new DATA_DIR's first start (shared/db/pglite.ts). Nothing when made.
 */
async function emptyDatabase() {
  const started = Date.now();
  const { ensurePgliteTemplate, pgliteTemplateDir } = await import(pathToFileURL(path.join(DIST, 'shared/db/pglite.js')).href);
  if (existsSync(path.join(pgliteTemplateDir(), 'PG_VERSION'))) return;
  const made = await ensurePgliteTemplate();
  process.stderr.write(made ? `[build] empty embedded database made in ${Date.now() - started} ms\n` : '[build] no empty embedded database kept (node_modules/.cache not writable): each new DATA_DIR runs initdb\n');
}

const files = sources();
if (mode !== '--if-stale' || stale(files)) await build(files);
await emptyDatabase();

if (mode === '--watch') {
  // A burst of saves is one build; a build that fails (a syntax error) is reported and the next save tries again.
  let timer;
  const rebuild = () => {
    clearTimeout(timer);
    timer = setTimeout(() => build(sources()).catch((err) => process.stderr.write(`[build] failed: ${err.message}\n`)), 100);
  };
  for (const dir of SOURCE_DIRS) watch(path.join(ROOT, dir), { recursive: true }, (_event, name) => name?.endsWith('.ts') && rebuild());
  process.stderr.write('[build] watching for changes\n');
}
