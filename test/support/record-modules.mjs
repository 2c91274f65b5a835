/**
 * Preloaded with `--import` (through NODE_OPTIONS, so that the processes a role starts inherit it): appends every
 * module file the process loads to the file named by RECORD_MODULES_TO, one `<pid> <esm|cjs> <url>` a line. Plain JavaScript:
 * the roles it watches run compiled, without a TypeScript loader.
 *
 * ES modules are seen by a resolve hook (record-modules-hooks.mjs: every import, static or dynamic, resolves through
 * it); CommonJS modules, which node 20 loads without the hooks, from the require cache when the process exits.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.RECORD_MODULES_TO;
if (file) {
  register('./record-modules-hooks.mjs', import.meta.url, { data: { file } });
  const cache = createRequire(import.meta.url).cache;
  process.once('exit', () => {
    const lines = Object.keys(cache).map((p) => `${process.pid} cjs ${pathToFileURL(p).href}\n`);
    if (lines.length > 0) appendFileSync(file, lines.join(''));
  });
}
