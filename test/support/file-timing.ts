/**
 * A mocha root hook plugin (.mocharc.json `require`): with MSS_TEST_TIMINGS=<file>, each test file's wall time (its
 * hooks included, which is where process starts and PKI creation go) is appended to that file as a JSON line, so the
 * slowest files can be found. Under `mocha --parallel` the root hooks run once per file in its worker.
 */
import { appendFileSync } from 'node:fs';

interface HookContext {
  test?: { parent?: { suites: Array<{ file?: string }> } };
}

const out = process.env.MSS_TEST_TIMINGS;
let started = 0;

export const mochaHooks = out
  ? {
      beforeAll() {
        started = performance.now();
      },
      afterAll(this: HookContext) {
        const file = this.test?.parent?.suites.find((s) => s.file)?.file ?? 'unknown';
        appendFileSync(out, `${JSON.stringify({ file: file.replace(`${process.cwd()}/`, ''), seconds: (performance.now() - started) / 1000 })}\n`);
      },
    }
  : {};
