import type { TokenCredential } from '@azure/core-auth';
import type { Config } from '../config.js';
import { AzureKeyVault, type AzureKeyVaultOptions } from './azure.js';
import { instrumentVault } from './instrumented.js';
import { LocalKeyVault } from './local.js';
import type { KeyVault } from './types.js';

export { AzureKeyVault } from './azure.js';
export type { AzureKeyVaultOptions, AzureVaultKey } from './azure.js';
export { instrumentVault } from './instrumented.js';
export { LocalKeyVault } from './local.js';
export { VaultKeyNotFoundError, VaultUnavailableError } from './types.js';
export type { KeyVault } from './types.js';

export interface CreateKeyVaultOptions {
  /** Credential for Azure Key Vault; DefaultAzureCredential (environment, workload/managed identity, az login...) when absent. */
  credential?: TokenCredential;
  /** SDK client options and the operation timeout for Azure Key Vault (tests: TLS trust, retries). */
  azure?: AzureKeyVaultOptions;
}

/**
 * The key vault the configuration asks for: Azure Key Vault at CLOUD_VAULT_URL when it is set, otherwise the
 * local vault in DATA_DIR/vault. Creating it does no I/O and loads no SDK (see load()); the first key read reaches
 * the vault. Its calls are measured (instrumentVault: a Proxy, so `instanceof AzureKeyVault` / `LocalKeyVault` still holds).
 */
export function createKeyVault(
  config: Pick<Config, 'cloudVaultUrl' | 'dataDir'>,
  options: CreateKeyVaultOptions = {},
): KeyVault {
  if (config.cloudVaultUrl) {
    return instrumentVault(new AzureKeyVault(config.cloudVaultUrl, options.credential, options.azure));
  }
  return instrumentVault(new LocalKeyVault(config.dataDir));
}
