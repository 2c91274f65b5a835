/** The role-process helper leaves no process behind when a role never becomes ready. */
import { expect } from 'chai';
import { isRunning, startRole } from './processes.js';
import { rejection } from './rejection.js';

// Long enough for the role to start its child on a loaded machine (tsx loads first).
const READY_WITHIN_MS = 8000;

describe('startRole, for a role that never becomes ready', function () {
  for (const [mode, failure] of [
    ['hang', /not ready after 8000 ms/],
    ['exit', /exited \(3\) before it was ready/],
  ] as const) {
    it(`fails and kills the role and the processes it started (${mode === 'hang' ? 'it times out' : 'it exits first'})`, async function () {
      const err = await rejection(startRole('test/fixtures/roles/never-ready.ts', { NEVER_READY: mode }, /ready to serve/, READY_WITHIN_MS));
      expect(err).to.be.instanceOf(Error);
      expect((err as Error).message).to.match(failure);
      const child = Number(/child (\d+)/.exec((err as Error).message)?.[1]);
      expect(child, (err as Error).message).to.be.greaterThan(0);
      // The helper waited for the role itself; its child is killed in the same stroke (SIGKILL to the group).
      for (let i = 0; i < 50 && isRunning(child); i++) await new Promise((r) => setTimeout(r, 20));
      expect(isRunning(child), `child ${child} still alive`).to.equal(false);
    });
  }
});
