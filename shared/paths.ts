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

/**
 * The path of a module beside `moduleUrl` (a caller's import.meta.url) started as a process of its own (fork,
 * cluster, BullMQ's sandboxes): `name`.ts under tsx, `name`.js beside the compiled caller in dist/.
 */
export function siblingModule(moduleUrl: string, name: string): string {
  const here = fileURLToPath(moduleUrl);
  return path.join(path.dirname(here), `${name}${path.extname(here)}`);
}
