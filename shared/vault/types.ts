import { ServiceError } from '../errors.js';

/** A P-384 key held by a key vault. The private half never leaves the vault. */
export interface VaultKey {
  /** Name of the key in the vault. */
  readonly name: string;
  /** Public key as DER SubjectPublicKeyInfo. */
  readonly publicKeySpki: Uint8Array;
  /**
   * ES384: SHA-384 over `data`, then ECDSA P-384. Returns the raw r||s signature (96 bytes),
   * which is what COSE wants; X.509 callers convert it with `shared/pki/ecdsa-signature.ts`.
   */
  signEs384(data: Uint8Array): Promise<Uint8Array>;
}

/** "The keys live elsewhere": one interface, a local driver and an Azure Key Vault driver. */
export interface KeyVault {
  /** Human-readable driver name for logs and health ("local", "azure"). */
  readonly kind: string;
  /** Returns the key, creating a new P-384 key under that name when the vault has none. */
  ensureKey(name: string): Promise<VaultKey>;
  /** Returns the key; throws VaultKeyNotFoundError when absent. */
  getKey(name: string): Promise<VaultKey>;
  /**
   * A driver over a cloud SDK imports it at its first call; load() does that now, without I/O. A role calls it at its
   * start, so that a setting the SDK refuses stops the start instead of the first request.
   */
  load?(): Promise<void>;
}

/** A key the service needs is missing from the vault: the service's fault (its setup), not the caller's. */
export class VaultKeyNotFoundError extends ServiceError {
  constructor(readonly keyName: string) {
    super('internal', 'vault_key_missing', `key "${keyName}" does not exist in the vault`, { publicMessage: 'the signing key is missing from the key vault' });
    this.name = 'VaultKeyNotFoundError';
  }
}

/** The vault could not be reached or answered with a failure; callers may retry. */
export class VaultUnavailableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', 'vault_unavailable', message, { ...options, publicMessage: 'the key vault could not be reached', retryAfterSeconds: 5 });
    this.name = 'VaultUnavailableError';
  }
}
