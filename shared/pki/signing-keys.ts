/** The vault key behind a certificate: whether a key holds a certificate's public key, and the checked keys that sign. */
import type { Certificate } from '../db/repositories/certificates.js';
import type { KeyVault, VaultKey } from '../vault/types.js';
import { readCertificate } from './certificate.js';
import { PkiError } from './errors.js';
import { samePublicKey } from './tbs-signer.js';

/** What is needed of a certificate (the service's own or an external CA's) to find and check its key. */
type KeyedCertificate = Pick<Certificate, 'key_name' | 'fingerprint_sha256' | 'der' | 'role' | 'serial'>;

export function holdsKey(cert: Pick<Certificate, 'der'>, key: VaultKey): boolean {
  return samePublicKey(readCertificate(cert.der).spkiDer, key.publicKeySpki);
}

/** Vault keys checked against a leaf certificate, by vault and certificate fingerprint. */
const signingKeys = new WeakMap<KeyVault, Map<string, Promise<VaultKey>>>();
const MAX_CACHED_SIGNING_KEYS = 16;

/** The leaf's vault key, once checked to hold the certificate's public key (then cached: no vault call per job). */
export function signingKeyFor(vault: KeyVault, leaf: KeyedCertificate): Promise<VaultKey> {
  let byFingerprint = signingKeys.get(vault);
  if (!byFingerprint) signingKeys.set(vault, (byFingerprint = new Map()));
  let pending = byFingerprint.get(leaf.fingerprint_sha256);
  if (!pending) {
    if (byFingerprint.size >= MAX_CACHED_SIGNING_KEYS) byFingerprint.clear();
    const cache = byFingerprint;
    pending = vault.getKey(leaf.key_name).then((key) => {
      if (!holdsKey(leaf, key)) {
        throw new PkiError(
          `vault key "${leaf.key_name}" does not hold the public key of ${leaf.role} ${leaf.serial}: run \`npm run pki -- ${leaf.role === 'tsa' ? 'rotate-tsa' : 'rotate-leaf'}\``,
          'key_mismatch',
        );
      }
      return key;
    });
    cache.set(leaf.fingerprint_sha256, pending);
    pending.catch(() => cache.delete(leaf.fingerprint_sha256)); // failures are retried on the next job
  }
  return pending;
}
