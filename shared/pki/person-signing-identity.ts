/**
 * What a sign job signs a person's CAWG identity assertion with: their current identity certificate (the newest
 * unrevoked one inside its validity, under a usable sub-CA), that sub-CA, and the certificate's vault key. Looked up
 * for every job, so a revocation (an admin's, a departure) stops the very next signature as that person.
 */
import type { Knex } from 'knex';
import { certificateStatus, findCertificateById } from '../db/repositories/certificates.js';
import { currentUserIdentityCertificate } from '../db/repositories/identity-certificates.js';
import { ServiceError } from '../errors.js';
import type { KeyVault } from '../vault/types.js';
import type { SigningIdentity } from './signing-identity.js';
import { signingKeyFor } from './signing-keys.js';

/** The person has no identity certificate that may sign now (none issued, revoked, expired, or the person is gone). */
export class IdentityCertificateMissingError extends ServiceError {
  constructor(message = 'the user has no valid identity certificate: issue one (POST /auth/me/identity-certificate)') {
    super('conflict', 'identity_certificate_missing', message);
    this.name = 'IdentityCertificateMissingError';
  }
}

export async function loadPersonSigningIdentity(deps: { knex: Knex; vault: KeyVault }, orgId: string, userId: string): Promise<SigningIdentity> {
  const certificate = await currentUserIdentityCertificate(deps.knex, orgId, userId);
  const subCa = certificate?.issuer_id ? await findCertificateById(deps.knex, certificate.issuer_id) : undefined;
  if (!certificate || !subCa || certificateStatus(subCa) !== 'valid') throw new IdentityCertificateMissingError();
  const key = await signingKeyFor(deps.vault, certificate);
  return { key, chainDer: [new Uint8Array(certificate.der), new Uint8Array(subCa.der)], serial: certificate.serial, subject: certificate.subject };
}
