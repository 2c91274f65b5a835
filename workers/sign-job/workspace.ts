import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ownedTempName } from '../../shared/storage/temp-owner.js';

/** Prefix of a job's own directory in the temp directory, after its process's (see sweepLeftovers). */
const JOB_DIR_PREFIX = 'sign-';

/**
 * A job's own directory for files signed from disk (video, audio, large images): made on first use, removed when the
 * job ends (signed or not). Images signed in memory never make one.
 */
export interface JobWorkspace {
  /** The directory, made on the first call. */
  dir(): Promise<string>;
  /** Removes the directory, if one was made. */
  remove(): Promise<void>;
}

export function jobWorkspace(tempDir: string | undefined, jobId: string): JobWorkspace {
  let made: Promise<string> | undefined;
  return {
    dir() {
      made ??= (async () => {
        const parent = tempDir ?? tmpdir();
        await mkdir(parent, { recursive: true, mode: 0o700 });
        return mkdtemp(path.join(parent, ownedTempName(`${JOB_DIR_PREFIX}${jobId}-`)));
      })();
      return made;
    },
    async remove() {
      // A directory that failed to be made is nothing to remove.
      const dir = await made?.catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
