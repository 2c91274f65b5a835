import type { TokenCredential } from '@azure/core-auth';
import type { Config } from '../config.js';
import { AzureBlobFileStore } from './azure-blob-store.js';
import { LocalFileStore } from './local-file-store.js';
import type { FileStore } from './types.js';

export { AzureBlobFileStore } from './azure-blob-store.js';
export { LocalFileStore } from './local-file-store.js';
export { FileTooLargeError, UploadStaging, type StagedFile } from './staging.js';
export { StorageUnavailableError, StoredFileMissingError, type FileStore } from './types.js';

/**
 * The file store the configuration asks for: Azure Blob Storage with AZURE_STORAGE_CONNECTION_STRING or
 * AZURE_STORAGE_ACCOUNT_URL (DefaultAzureCredential, as for the key vault), otherwise DATA_DIR/files.
 * Creating it does no I/O and loads no SDK (the Azure store imports it at its first call, or at load()).
 */
export function createFileStore(config: Pick<Config, 'dataDir' | 'blobStorage'>, options: { credential?: TokenCredential } = {}): FileStore {
  const blob = config.blobStorage;
  if (blob?.connectionString) return new AzureBlobFileStore({ connectionString: blob.connectionString }, blob.container);
  if (blob?.accountUrl) return new AzureBlobFileStore({ accountUrl: blob.accountUrl, credential: options.credential }, blob.container);
  return new LocalFileStore(config.dataDir);
}
export { createResumableStore, type ResumableStore } from './resumable-store.js';
