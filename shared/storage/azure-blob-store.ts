import type { TokenCredential } from '@azure/core-auth';
import type { ContainerClient, StoragePipelineOptions } from '@azure/storage-blob';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { azureCredential } from '../azure-credential.js';
import { checkStorageKey, StorageUnavailableError, StoredFileMissingError, type FileStore } from './types.js';

/**
 * Where to reach Blob Storage: a connection string (account key or SAS; Azurite), or an account URL and a credential
 * (DefaultAzureCredential when absent).
 */
export type AzureBlobTarget = { connectionString: string } | { accountUrl: string; credential?: TokenCredential };

/**
 * SDK retries: 3 tries, 0.5 s then 1 s apart, so an unreachable account fails a sign attempt in seconds (the queue
 * retries the attempt) rather than after the SDK's default of minutes.
 */
export const BLOB_RETRY_OPTIONS = { maxTries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 2000 } as const;

export function statusOf(err: unknown): number | undefined {
  return (err as { statusCode?: number }).statusCode;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

/**
 * The SDK's client of one container, with the store's retry policy. The SDK is imported here, when a store first
 * needs it, so that a process keeping its files on the local disk never loads it.
 */
export async function containerClientFor(target: AzureBlobTarget, containerName: string, options: StoragePipelineOptions = {}): Promise<ContainerClient> {
  const { BlobServiceClient } = await import('@azure/storage-blob');
  const pipeline = { retryOptions: BLOB_RETRY_OPTIONS, ...options };
  const service =
    'connectionString' in target
      ? BlobServiceClient.fromConnectionString(target.connectionString, pipeline)
      : new BlobServiceClient(target.accountUrl, await azureCredential(target.credential), pipeline);
  return service.getContainerClient(containerName);
}

/**
 * Files as block blobs in one container of Azure Blob Storage, so that API and worker processes on any host share
 * them. A block blob becomes visible only when its block list is committed, so a reader never sees half a file.
 */
export class AzureBlobFileStore implements FileStore {
  readonly kind = 'azure-blob';
  private container: Promise<ContainerClient> | undefined;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly target: AzureBlobTarget,
    private readonly containerName: string,
    private readonly options: StoragePipelineOptions = {},
  ) {}

  /** Imports the SDK and makes the container's client, without I/O (see KeyVault.load). */
  async load(): Promise<void> {
    await this.containerClient();
  }

  /** Made at the first call (again after a failure). */
  private containerClient(): Promise<ContainerClient> {
    if (!this.container) {
      this.container = containerClientFor(this.target, this.containerName, this.options);
      this.container.catch(() => (this.container = undefined));
    }
    return this.container;
  }

  private async blob(key: string) {
    return (await this.containerClient()).getBlockBlobClient(checkStorageKey(key));
  }

  /**
   * Runs one SDK call, turning "not found" and "unreachable" into the store's own errors. The key is checked
   * first: an invalid one is refused before any I/O (not even the container's creation).
   */
  private async call<T>(key: string, what: string, fn: () => Promise<T>): Promise<T> {
    checkStorageKey(key);
    await this.ensureReady();
    try {
      return await fn();
    } catch (err) {
      if (statusOf(err) === 404) throw new StoredFileMissingError(key);
      throw new StorageUnavailableError(`blob storage could not ${what} "${key}": ${describe(err)}`, { cause: err });
    }
  }

  /** Creates the container on first use (once per process; a failure is tried again next time). */
  ensureReady(): Promise<void> {
    this.ready ??= this.containerClient()
      .then((container) => container.createIfNotExists())
      .then(
        () => undefined,
        (err: unknown) => {
          this.ready = undefined;
          throw new StorageUnavailableError(`blob storage container "${this.containerName}" is unreachable: ${describe(err)}`, { cause: err });
        },
      );
    return this.ready;
  }

  async putFile(key: string, localPath: string): Promise<void> {
    await this.call(key, 'store', async () => (await this.blob(key)).uploadFile(localPath));
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    await this.call(key, 'store', async () => (await this.blob(key)).uploadData(bytes));
  }

  async read(key: string): Promise<Buffer> {
    return this.call(key, 'read', async () => (await this.blob(key)).downloadToBuffer());
  }

  /** Streamed to disk by the SDK (downloadToFile); a partial file is removed. */
  async readToFile(key: string, localPath: string): Promise<void> {
    try {
      await this.call(key, 'read', async () => (await this.blob(key)).downloadToFile(localPath));
    } catch (err) {
      await rm(localPath, { force: true });
      throw err;
    }
  }

  async openRead(key: string) {
    const response = await this.call(key, 'read', async () => (await this.blob(key)).download());
    const body = response.readableStreamBody;
    if (!body) throw new StorageUnavailableError(`blob storage returned no body for "${key}"`);
    return { stream: body instanceof Readable ? body : Readable.from(body as AsyncIterable<Buffer>), size: response.contentLength ?? 0 };
  }

  async remove(key: string): Promise<void> {
    await this.call(key, 'remove', async () => (await this.blob(key)).deleteIfExists());
  }
}
