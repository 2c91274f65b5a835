/** Where the service keeps its state: the database, Redis (queues), the data directory and Blob Storage. */
import path from 'node:path';
import { ConfigError, optional, str, url, type Env } from './parse.js';

export interface BlobStorageConfig {
  /** AZURE_STORAGE_CONNECTION_STRING (a secret: never logged). */
  connectionString?: string;
  /** AZURE_STORAGE_ACCOUNT_URL, used with DefaultAzureCredential when there is no connection string. */
  accountUrl?: string;
  /** BLOB_CONTAINER, created when absent. */
  container: string;
}

export interface StorageSettings {
  /** Postgres connection string; undefined selects the embedded PGlite database in dataDir. */
  databaseUrl: string | undefined;
  redisUrl: string;
  /** Key prefix of the BullMQ queues and job events in Redis, so several deployments can share a server. */
  queuePrefix: string;
  dataDir: string;
  /** Azure Blob Storage for uploaded and signed files; undefined keeps them in DATA_DIR/files. */
  blobStorage: BlobStorageConfig | undefined;
}

export function storageSettings(env: Env): StorageSettings {
  return {
    databaseUrl: url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'])!,
    queuePrefix: str(env, 'QUEUE_PREFIX', 'mss'),
    dataDir: path.resolve(str(env, 'DATA_DIR', './data')),
    blobStorage: blobStorage(env),
  };
}

function blobStorage(env: Env): BlobStorageConfig | undefined {
  const connectionString = optional(env, 'AZURE_STORAGE_CONNECTION_STRING');
  const accountUrl = url(env, 'AZURE_STORAGE_ACCOUNT_URL', undefined, ['https:', 'http:']);
  const container = str(env, 'BLOB_CONTAINER', 'media');
  // Azure's rule: 3-63 lowercase letters, digits and single dashes, starting and ending with a letter or digit.
  if (!/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/.test(container)) {
    throw new ConfigError('BLOB_CONTAINER', `must be 3-63 lowercase letters, digits and single dashes, got "${container}"`);
  }
  if (connectionString !== undefined && !/(^|;)\s*(AccountName|BlobEndpoint|SharedAccessSignature)=/i.test(connectionString)) {
    // Never echo the value: it holds the account key.
    throw new ConfigError('AZURE_STORAGE_CONNECTION_STRING', 'is not an Azure Storage connection string (AccountName=...;AccountKey=... or BlobEndpoint=...)');
  }
  if (connectionString === undefined && accountUrl === undefined) return undefined;
  return { connectionString, accountUrl, container };
}
