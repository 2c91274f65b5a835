import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../errors.js';
import { ownedTempName } from './temp-owner.js';

export class FileTooLargeError extends ServiceError {
  constructor(readonly limit: number) {
    super('too_large', 'payload_too_large', `the file exceeds the limit of ${limit} bytes`);
    this.name = 'FileTooLargeError';
  }
}

export interface StagedFile {
  tempPath: string;
  sha256: string;
  size: number;
}

/**
 * Incoming uploads on this process's own disk (DATA_DIR/tmp), streamed and hashed as they arrive, so that
 * their structure can be checked before anything reaches the file store, and a refused or aborted upload
 * leaves nothing behind. Private to the host: no other process reads these files. Each name starts with the
 * staging process's pid, so a later start can tell a dead process's leftovers (sweepDeadOwners).
 */
export class UploadStaging {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'tmp');
  }

  /**
   * Streams `input` to a temp file, hashing as it goes; stops at `maxBytes` with FileTooLargeError. Whatever ends the
   * stream early (the input failing or being destroyed, the limit, the disk), the file is removed and its descriptor
   * closed before this rejects.
   */
  async stage(input: Readable, maxBytes: number): Promise<StagedFile> {
    // An input that fails while the directory and file are being made must not go unheard: an 'error' event without
    // a listener ends the process. pipeline() below sees the stream's stored error and rejects with it.
    const ignore = () => undefined;
    input.on('error', ignore);
    const tempPath = path.join(this.dir, ownedTempName(randomUUID()));
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const handle = await open(tempPath, 'wx', 0o600);
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          if (size > maxBytes) return done(new FileTooLargeError(maxBytes));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      // The write stream owns the handle: it closes it when the pipeline finishes or is torn down.
      await pipeline(input, meter, handle.createWriteStream());
      return { tempPath, sha256: hash.digest('hex'), size };
    } catch (err) {
      await rm(tempPath, { force: true });
      throw err;
    } finally {
      input.off('error', ignore);
    }
  }

  async discard(staged: StagedFile): Promise<void> {
    await rm(staged.tempPath, { force: true });
  }
}
