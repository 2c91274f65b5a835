import type { VaultKey } from '../vault/types.js';

/** What a signature needs: the leaf's vault key and the chain to embed (leaf first, then the sub-CA). */
export interface SigningIdentity {
  key: VaultKey;
  chainDer: Uint8Array[];
  /** Serial (hex) of the leaf certificate, recorded with every signed file. */
  serial: string;
  /** Subject of the leaf (names the organisation), recorded with every signed file. */
  subject: string;
}

export class NoSigningCertificateError extends Error {
  constructor(message = 'no valid signing certificate: run `npm run pki -- init` (or rotate-leaf)') {
    super(message);
    this.name = 'NoSigningCertificateError';
  }
}
