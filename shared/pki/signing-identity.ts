import { currentSigningChain, type Db } from '../db/repositories/certificates.js';
import type { KeyVault, VaultKey } from '../vault/types.js';
import { signingKeyFor } from './signing-keys.js';
import { ServiceError } from '../errors.js';

/** What a signature needs: the leaf's vault key and the chain to embed (leaf first, then the sub-CA). */
export interface SigningIdentity {
  key: VaultKey;
  chainDer: Uint8Array[];
  /** Serial (hex) of the leaf certificate, recorded with every signed file. */
  serial: string;
  /** Subject of the leaf (names the organisation), recorded with every signed file. */
  subject: string;
  /** The certificate comes from an organisation's external CA (its OCSP responder is someone else's). */
  external?: boolean;
}

/** No certificate to sign with until an operator or an admin acts (an API caller is told to come back later). */
export class NoSigningCertificateError extends ServiceError {
  constructor(message = 'no valid signing certificate: run `npm run pki -- init` (or rotate-leaf)') {
    super('unavailable', 'no_signing_certificate', message, { retryAfterSeconds: 60 });
    this.name = 'NoSigningCertificateError';
  }
}

/**
 * The service's own signing identity: the newest valid, unrevoked service leaf (LEAF_KEY_NAME, under a valid,
 * unrevoked sub-CA), its chain [leaf DER, sub-CA DER] and its vault key; throws NoSigningCertificateError when
 * none. Organisations' files are signed with their own certificates (org-signing-identity.ts).
 */
export async function loadSigningIdentity(deps: { knex: Db; vault: KeyVault }): Promise<SigningIdentity> {
  const chain = await currentSigningChain(deps.knex, new Date());
  if (!chain) throw new NoSigningCertificateError();
  const key = await signingKeyFor(deps.vault, chain.leaf);
  return { key, chainDer: [new Uint8Array(chain.leaf.der), new Uint8Array(chain.subCa.der)], serial: chain.leaf.serial, subject: chain.leaf.subject };
}
