import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository's root, the folder holding package.json: one folder above shared/ when the TypeScript runs (tsx),
 * two when it runs compiled from dist/shared/. Files that are not modules (the web app, the trust lists, the
 * package's version) are read from here, so that the compiled roles use the repository's and dist/ holds code only.
 */
function projectRoot(): string {
  const above = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  return existsSync(path.join(above, 'package.json')) ? above : path.dirname(above);
}

export const PROJECT_ROOT = projectRoot();

/** Set by the test suite (test/support/suite-setup.ts) once it has built dist/: see childModule. */
export const COMPILED_CHILDREN_VARIABLE = 'MSS_COMPILED_CHILDREN';

/** What a process of our own is started with: the module, and node's options for it. */
export interface ChildModule {
  modulePath: string;
  execArgv: string[];
}

/**
 * A module beside `moduleUrl` (a caller's import.meta.url) started as a process of its own (fork, cluster, BullMQ's
 * sandboxes), with this process's node options: `name`.ts under tsx, `name`.js beside the compiled caller in dist/.
 * With MSS_COMPILED_CHILDREN=1 (the test suite, which runs its own code under tsx but has built dist/ for the run) a
 * TypeScript caller starts the compiled copy instead, without tsx's loader, which costs each child most of a second.
 */
export function childModule(moduleUrl: string, name: string, execArgv: string[] = process.execArgv): ChildModule {
  const here = fileURLToPath(moduleUrl);
  const modulePath = path.join(path.dirname(here), `${name}${path.extname(here)}`);
  if (process.env[COMPILED_CHILDREN_VARIABLE] !== '1' || !modulePath.endsWith('.ts')) return { modulePath, execArgv };
  return {
    modulePath: path.join(PROJECT_ROOT, 'dist', path.relative(PROJECT_ROOT, modulePath)).replace(/\.ts$/, '.js'),
    execArgv: execArgv.filter((arg, i) => arg !== '--import=tsx' && !(arg === 'tsx' && execArgv[i - 1] === '--import') && !(arg === '--import' && execArgv[i + 1] === 'tsx')),
  };
}
