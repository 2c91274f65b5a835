import type { Readable } from 'node:stream';
import { ServiceError } from '../errors.js';

/**
 * Where uploaded and signed files live: one interface, a local-directory driver (`npm start`, single hosts) and
 * an Azure Blob Storage driver (several hosts). Keys look like `uploads/<org>/<id>.jpg`.
 */
export interface FileStore {
  /** Driver name for logs and readiness ("local", "azure-blob"). */
  readonly kind: string;
  /** Creates the directory or container when absent; throws StorageUnavailableError when it cannot be reached. */
  ensureReady(): Promise<void>;
  /** Streams a local file into the store under `key` (never read whole into memory). Readers never see half a file. */
  putFile(key: string, localPath: string): Promise<void>;
  /** Stores bytes under `key`, replacing nothing a reader could see half-written. */
  write(key: string, bytes: Uint8Array): Promise<void>;
  read(key: string): Promise<Buffer>;
  /**
   * Streams the file into `localPath` (created or replaced; never read whole into memory), for work on a file of
   * any size. StoredFileMissingError when there is none; on any failure nothing is left at `localPath`.
   */
  readToFile(key: string, localPath: string): Promise<void>;
  /** A stream of the file and its size; StoredFileMissingError when there is none. */
  openRead(key: string): Promise<{ stream: Readable; size: number }>;
  /** Removes the file; a missing file is not an error. */
  remove(key: string): Promise<void>;
  /** Loads a cloud driver's SDK now, without I/O (see KeyVault.load). */
  load?(): Promise<void>;
}

export class StoredFileMissingError extends Error {
  constructor(readonly key: string) {
    super(`no stored file under "${key}"`);
    this.name = 'StoredFileMissingError';
  }
}

/** The store could not be reached or refused the operation; callers may retry. */
export class StorageUnavailableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', 'storage_unavailable', message, { ...options, publicMessage: 'file storage could not be reached', retryAfterSeconds: 5 });
    this.name = 'StorageUnavailableError';
  }
}

const STORAGE_KEY = /^[a-z0-9-]+(\/[a-z0-9.-]+)+$/;

/** Keys are made by the service, never by clients; anything else is a bug, refused before any I/O. */
export function checkStorageKey(key: string): string {
  if (!STORAGE_KEY.test(key) || key.includes('..')) throw new Error(`invalid storage key "${key}"`);
  return key;
}
