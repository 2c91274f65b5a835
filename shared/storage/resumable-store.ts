/**
 * Where resumable uploads (tus) keep their bytes until the last one arrives: a @tus DataStore keyed by the upload
 * session's id. DATA_DIR/resumable through @tus/file-store, or Azure Blob Storage append blobs (`resumable/<id>` in
 * BLOB_CONTAINER, azure-append-store.ts) when Blob Storage is configured, so that any API host can take the next PATCH.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync } from 'node:fs';
import { link, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DefaultAzureCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/core-auth';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/utils';
import type { Config } from '../config.js';
import { AzureAppendStore } from './azure-append-store.js';
import { containerClientFor } from './azure-blob-store.js';
import type { StagedFile, UploadStaging } from './staging.js';
import { ownedTempName } from './temp-owner.js';

export interface ResumableStore {
  /** "local" or "azure-blob". */
  readonly kind: string;
  /** What @tus/server reads and writes. */
  readonly datastore: DataStore;
  /**
   * A complete upload's bytes as a staged file, hashed, for the checks every upload goes through; the session's bytes
   * stay until remove(). Local: a hard link (no copy); Blob Storage: a copy on this host's staging disk.
   */
  stage(id: string, staging: UploadStaging, maxBytes: number): Promise<StagedFile>;
  /** Removes an upload's bytes; nothing there is not an error. */
  remove(id: string): Promise<void>;
}

class LocalResumableStore implements ResumableStore {
  readonly kind = 'local';
  readonly datastore: FileStore;
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'resumable');
    // Made here, private to the service: @tus/file-store would make it world-writable, and throw out of a callback on failure.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.datastore = new FileStore({ directory: this.dir });
  }

  async stage(id: string, staging: UploadStaging, maxBytes: number): Promise<StagedFile> {
    const source = path.join(this.dir, id);
    // A second name for the same bytes in the staging directory: checking and storing it (or discarding it) leaves the
    // session's own file alone until the upload is recorded. A copy where a link cannot be made (another filesystem).
    await mkdir(staging.dir, { recursive: true, mode: 0o700 });
    const tempPath = path.join(staging.dir, ownedTempName(randomUUID()));
    try {
      await link(source, tempPath);
    } catch {
      return staging.stage(createReadStream(source), maxBytes);
    }
    try {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of createReadStream(tempPath) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
      return { tempPath, sha256: hash.digest('hex'), size };
    } catch (err) {
      await rm(tempPath, { force: true });
      throw err;
    }
  }

  async remove(id: string): Promise<void> {
    // Both of @tus/file-store's files, each whether or not the other is there (its own remove stops at a missing one).
    await rm(path.join(this.dir, id), { force: true });
    await rm(path.join(this.dir, `${id}.json`), { force: true });
  }
}

class BlobResumableStore implements ResumableStore {
  readonly kind = 'azure-blob';
  constructor(readonly datastore: AzureAppendStore) {}

  async stage(id: string, staging: UploadStaging, maxBytes: number): Promise<StagedFile> {
    return staging.stage(await this.datastore.openRead(id), maxBytes);
  }

  remove(id: string): Promise<void> {
    return this.datastore.remove(id);
  }
}

/** The store beside the configured file store: Blob Storage when it is configured, DATA_DIR/resumable otherwise. */
export function createResumableStore(config: Pick<Config, 'dataDir' | 'blobStorage'>, options: { credential?: TokenCredential } = {}): ResumableStore {
  const blob = config.blobStorage;
  if (blob?.connectionString) return new BlobResumableStore(new AzureAppendStore(containerClientFor({ connectionString: blob.connectionString }, blob.container)));
  if (blob?.accountUrl) {
    const credential = options.credential ?? new DefaultAzureCredential();
    return new BlobResumableStore(new AzureAppendStore(containerClientFor({ accountUrl: blob.accountUrl, credential }, blob.container)));
  }
  return new LocalResumableStore(config.dataDir);
}
