import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export const LOCK_NAME = '.mss-sign.lock';

/** Another run holds the out directory. */
export class OutDirLocked extends Error {
  constructor(readonly lockFile: string, readonly holder: string) {
    super(`another mss sign (${holder || 'starting'}) is writing into ${path.dirname(lockFile)}: wait for it, or use another --out (remove ${lockFile} if no mss sign runs there)`);
    this.name = 'OutDirLocked';
  }
}

/** Whether the lock's holder ("pid@host") may still run: a live pid of this host, or any holder elsewhere or unreadable. */
function mayRun(holder: string): boolean {
  const match = /^(\d+)@(.*)$/.exec(holder);
  if (!match || match[2] !== hostname()) return true;
  try {
    process.kill(Number(match[1]), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

function readHolder(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * Takes the out directory of `mss sign` for this process: a lock file created with O_EXCL holding "pid@host", so a
 * second run into the same directory is refused (OutDirLocked) while the first runs. A lock left by a run that died
 * (its pid gone on this host) is taken over. Returns the release function (it removes the lock only while it is
 * still this process's).
 */
export function lockOutDir(outDir: string): () => void {
  const file = path.join(outDir, LOCK_NAME);
  const me = `${process.pid}@${hostname()}`;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder === undefined && attempt < 2) continue;
      // An empty file: its run is between creating and writing it.
      if (holder === undefined || holder === '' || mayRun(holder) || attempt >= 1) throw new OutDirLocked(file, holder ?? '');
      // A dead run's lock: removed only if it is still that one (another run may have taken it over meanwhile).
      if (readHolder(file) === holder) unlinkSync(file);
      continue;
    }
    writeSync(fd, `${me}\n`);
    closeSync(fd);
    return () => {
      if (readHolder(file) === me) unlinkSync(file);
    };
  }
}
