import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** What bin/build.mjs compiles: the folders whose scripts have a copy in dist/. */
const BUILT_DIRS = ['api', 'workers', 'scheduler', 'ocsp', 'shared', 'migrations', 'bin'];
const STAMP = path.join(ROOT, 'dist', '.built');

/**
 * node's arguments to run `script` (a .ts file, relative to the repository): its compiled copy in dist/ when that is
 * newer than the source (suite-setup.ts builds it once per run), as production runs it; else the TypeScript
 * through tsx (test fixtures, or a source edited since the build).
 */
export function nodeScriptArgs(script: string): string[] {
  const relative = path.relative(ROOT, path.resolve(ROOT, script));
  const compiled = path.join(ROOT, 'dist', relative.replace(/\.ts$/, '.js'));
  const current =
    BUILT_DIRS.includes(relative.split(path.sep)[0]!) &&
    existsSync(STAMP) &&
    existsSync(compiled) &&
    statSync(STAMP).mtimeMs >= statSync(path.join(ROOT, relative)).mtimeMs;
  return current ? [compiled] : ['--import', 'tsx', path.join(ROOT, relative)];
}
