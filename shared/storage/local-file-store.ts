import { randomUUID } from 'node:crypto';
import { copyFile, link, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkStorageKey, StoredFileMissingError, type FileStore } from './types.js';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Files in a local directory (DATA_DIR/files), each written to a temp name and renamed into place, so a reader
 * never sees half a file. For `npm start` and single-host installs: processes on other hosts cannot see it.
 */
export class LocalFileStore implements FileStore {
  readonly kind = 'local';
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'files');
  }

  private resolve(key: string): string {
    return path.join(this.root, checkStorageKey(key));
  }

  async ensureReady(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
  }

  /** A hard link when staging is on the same disk (no copy); a copy across file systems. */
  async putFile(key: string, localPath: string): Promise<void> {
    const target = this.resolve(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await link(localPath, temp).catch(() => copyFile(localPath, temp));
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.resolve(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomUUID()}.tmp`;
    try {
      await writeFile(temp, bytes, { mode: 0o600 });
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(key: string): Promise<Buffer> {
    try {
      return await readFile(this.resolve(key));
    } catch (err) {
      throw isMissing(err) ? new StoredFileMissingError(key) : err;
    }
  }

  /**
   * A hard link when `localPath` is on the same disk (no copy: stored files are never changed in place, only
   * replaced by rename), a copy across file systems.
   */
  async readToFile(key: string, localPath: string): Promise<void> {
    const source = this.resolve(key);
    await rm(localPath, { force: true });
    try {
      await link(source, localPath).catch(async (err: unknown) => {
        if (isMissing(err)) throw err;
        await copyFile(source, localPath);
      });
    } catch (err) {
      await rm(localPath, { force: true });
      throw isMissing(err) ? new StoredFileMissingError(key) : err;
    }
  }

  async openRead(key: string) {
    let handle;
    try {
      handle = await open(this.resolve(key), 'r');
    } catch (err) {
      throw isMissing(err) ? new StoredFileMissingError(key) : err;
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream({ autoClose: true }), size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.resolve(key), { force: true });
  }
}
