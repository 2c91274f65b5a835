import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

const STORAGE_KEY = /^[a-z0-9-]+(\/[a-z0-9.-]+)+$/;

/**
 * Files on a local directory (DATA_DIR/files), written to a temp file first and renamed into place,
 * so a reader never sees half a file. Processes on several hosts must share this directory.
 */
export class FileStore {
  private readonly root: string;
  private readonly tmp: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'files');
    this.tmp = path.join(dataDir, 'tmp');
  }

  private resolve(key: string): string {
    if (!STORAGE_KEY.test(key) || key.includes('..')) throw new Error(`invalid storage key "${key}"`);
    return path.join(this.root, key);
  }

  /** Streams `input` to a temp file, hashing as it goes; stops at `maxBytes` with FileTooLargeError. */
  async stage(input: Readable, maxBytes: number): Promise<StagedFile> {
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    const tempPath = path.join(this.tmp, randomUUID());
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

  /** Moves a staged file to its permanent key. */
  async commit(staged: StagedFile, key: string): Promise<void> {
    const target = this.resolve(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await rename(staged.tempPath, target);
  }

  async discard(staged: StagedFile): Promise<void> {
    await rm(staged.tempPath, { force: true });
  }

  /** Writes bytes under `key` atomically (temp file + rename). */
  async write(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.resolve(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomUUID()}.tmp`;
    await writeFile(temp, bytes, { mode: 0o600 });
    await rename(temp, target);
  }

  async read(key: string): Promise<Buffer> {
    return readFile(this.resolve(key));
  }

  createReadStream(key: string): ReadStream {
    return createReadStream(this.resolve(key));
  }

  async size(key: string): Promise<number> {
    return (await stat(this.resolve(key))).size;
  }

  async remove(key: string): Promise<void> {
    await rm(this.resolve(key), { force: true });
  }
}
