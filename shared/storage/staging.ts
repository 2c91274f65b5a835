import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class FileTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`file exceeds the limit of ${limit} bytes`);
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
 * leaves nothing behind. Private to the host: no other process reads these files.
 */
export class UploadStaging {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'tmp');
  }

  /** Streams `input` to a temp file, hashing as it goes; stops at `maxBytes` with FileTooLargeError. */
  async stage(input: Readable, maxBytes: number): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tempPath = path.join(this.dir, randomUUID());
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
    try {
      await pipeline(input, meter, createWriteStream(tempPath, { mode: 0o600 }));
    } catch (err) {
      await rm(tempPath, { force: true });
      throw err;
    }
    return { tempPath, sha256: hash.digest('hex'), size };
  }

  async discard(staged: StagedFile): Promise<void> {
    await rm(staged.tempPath, { force: true });
  }
}
