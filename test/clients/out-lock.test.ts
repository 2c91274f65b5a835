/** The lock `mss sign` takes on its out directory: one run at a time, a dead run's lock taken over. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LOCK_NAME, lockOutDir, OutDirLocked } from '../../clients/typescript/src/cli/out-lock.js';

describe('mss sign: the out directory lock', function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mss-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lockFile = () => path.join(dir, LOCK_NAME);
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    throw new Error('expected a refusal');
  };

  it('is held by one run at a time, with its pid, and released by it', () => {
    const release = lockOutDir(dir);
    expect(readFileSync(lockFile(), 'utf8')).to.equal(`${process.pid}@${hostname()}\n`);
    const err = refusal(() => lockOutDir(dir));
    expect(err).to.be.instanceOf(OutDirLocked);
    expect((err as Error).message).to.include(`another mss sign (${process.pid}@${hostname()}) is writing into ${dir}`);
    release();
    lockOutDir(dir)();
  });

  it('takes over the lock of a run that died; refuses one of a live process, of another host, or one being written', () => {
    const dead = spawnSync('true').pid!; // exited and reaped: its pid names no process now
    writeFileSync(lockFile(), `${dead}@${hostname()}\n`);
    const release = lockOutDir(dir);
    expect(readFileSync(lockFile(), 'utf8')).to.equal(`${process.pid}@${hostname()}\n`);
    release();

    for (const holder of [`${process.ppid}@${hostname()}`, `${dead}@another-host`, '']) {
      writeFileSync(lockFile(), holder);
      expect(refusal(() => lockOutDir(dir)), holder).to.be.instanceOf(OutDirLocked);
      expect(readFileSync(lockFile(), 'utf8'), 'left as it was').to.equal(holder);
    }
  });

  it('a release removes only its own lock', () => {
    const release = lockOutDir(dir);
    writeFileSync(lockFile(), `${process.ppid}@${hostname()}\n`); // taken by another run meanwhile (by hand)
    release();
    expect(readFileSync(lockFile(), 'utf8')).to.equal(`${process.ppid}@${hostname()}\n`);
  });
});
