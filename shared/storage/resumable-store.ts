/**
 * Where resumable uploads (tus) keep their bytes until the last one arrives: a @tus DataStore keyed by the upload
 * session's id. DATA_DIR/resumable through @tus/file-store, or Azure Blob Storage append blobs (`resumable/<id>` in
 * BLOB_CONTAINER, azure-append-store.ts) when Blob Storage is configured, so that any API host can take the next PATCH.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync } from 'node:fs';
import { link, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { TokenCredential } from '@azure/core-auth';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/utils';
import type { Config } from '../config.js';
import type { AzureAppendStore } from './azure-append-store.js';
import { containerClientFor, type AzureBlobTarget } from './azure-blob-store.js';
import type { StagedFile, UploadStaging } from './staging.js';
import { ownedTempName } from './temp-owner.js';

export interface ResumableStore {
  /** "local" or "azure-blob". */
  readonly kind: string;
  /** What @tus/server reads and writes (Blob Storage's is made, and its SDK imported, at the first call). */
  datastore(): Promise<DataStore>;
  /**
   * A complete upload's bytes as a staged file, hashed, for the checks every upload goes through; the session's bytes
   * stay until remove(). Local: a hard link (no copy); Blob Storage: a copy on this host's staging disk.
   */
  stage(id: string, staging: UploadStaging, maxBytes: number): Promise<StagedFile>;
  /** Removes an upload's bytes; nothing there is not an error. */
  remove(id: string): Promise<void>;
  /** Loads a cloud driver's SDK now, without I/O (see KeyVault.load). */
  load?(): Promise<void>;
}

class LocalResumableStore implements ResumableStore {
  readonly kind = 'local';
  private store: FileStore | undefined;
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'resumable');
    // Made here, private to the service: @tus/file-store would make it world-writable, and throw out of a callback on failure.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Made at the first upload, not with the app: @tus/file-store's constructor makes its directory again in the
   * background and throws out of that callback if it fails (an app closed and its data directory removed meanwhile).
   */
  async datastore(): Promise<DataStore> {
    this.store ??= new FileStore({ directory: this.dir });
    return this.store;
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
  private store: Promise<AzureAppendStore> | undefined;

  constructor(
    private readonly target: AzureBlobTarget,
    private readonly containerName: string,
  ) {}

  async load(): Promise<void> {
    await this.datastore();
  }

  /** @tus/azure-store and the Blob Storage SDK are imported here, at the first call (again after a failure). */
  datastore(): Promise<AzureAppendStore> {
    if (!this.store) {
      this.store = Promise.all([import('./azure-append-store.js'), containerClientFor(this.target, this.containerName)]).then(
        ([{ AzureAppendStore }, container]) => new AzureAppendStore(container),
      );
      this.store.catch(() => (this.store = undefined));
    }
    return this.store;
  }

  async stage(id: string, staging: UploadStaging, maxBytes: number): Promise<StagedFile> {
    return staging.stage(await (await this.datastore()).openRead(id), maxBytes);
  }

  async remove(id: string): Promise<void> {
    await (await this.datastore()).remove(id);
  }
}

/** The store beside the configured file store: Blob Storage when it is configured, DATA_DIR/resumable otherwise. */
export function createResumableStore(config: Pick<Config, 'dataDir' | 'blobStorage'>, options: { credential?: TokenCredential } = {}): ResumableStore {
  const blob = config.blobStorage;
  if (blob?.connectionString) return new BlobResumableStore({ connectionString: blob.connectionString }, blob.container);
  if (blob?.accountUrl) return new BlobResumableStore({ accountUrl: blob.accountUrl, credential: options.credential }, blob.container);
  return new LocalResumableStore(config.dataDir);
}
