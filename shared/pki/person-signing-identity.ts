/**
 * What a sign job signs a person's CAWG identity assertion with: their identity certificate in force, its chain and
 * the certificate's vault key. That is one from the organisation's external CA when the person's newest accepted one
 * is newer than their newest from the service CA (external-certificates.ts), else their newest unrevoked service CA
 * certificate inside its validity, under a usable sub-CA. Looked up for every job, so a revocation (an admin's, a
 * departure, a CA's recorded) stops the very next signature as that person.
 */
import type { Knex } from 'knex';
import { certificateStatus, findCertificateById, type Certificate } from '../db/repositories/certificates.js';
import type { AcceptedExternalCertificate } from '../db/repositories/external-certificates.js';
import { currentUserIdentityCertificate } from '../db/repositories/identity-certificates.js';
import { ServiceError } from '../errors.js';
import type { KeyVault } from '../vault/types.js';
import { externalCertificateInForce, externalChainDer, externalUnusable } from './external-certificates.js';
import type { SigningIdentity } from './signing-identity.js';
import { signingKeyFor } from './signing-keys.js';

/** The person has no identity certificate that may sign now (none issued, revoked, expired, or the person is gone). */
export class IdentityCertificateMissingError extends ServiceError {
  constructor(message = 'the user has no valid identity certificate: issue one (POST /auth/me/identity-certificate)') {
    super('conflict', 'identity_certificate_missing', message);
    this.name = 'IdentityCertificateMissingError';
  }
}

export type PersonCertificate =
  | { source: 'external_ca'; certificate: AcceptedExternalCertificate }
  | { source: 'service_ca'; certificate: Certificate; subCa: Certificate };

/** The certificate the person signs as with now; IdentityCertificateMissingError, saying why, when there is none. */
export async function personCertificateInForce(knex: Knex, orgId: string, userId: string): Promise<PersonCertificate> {
  const external = await externalCertificateInForce(knex, { orgId, userId });
  if (external) {
    const unusable = externalUnusable(external);
    // No fallback to an older certificate behind the person's back, as for an organisation's.
    if (unusable) throw new IdentityCertificateMissingError(`the identity certificate from the external CA (${external.serial}) is ${unusable.replace(/_/g, ' ')}: hand in a new chain (POST /auth/me/identity-certificate/requests) or take one from the service CA (POST /auth/me/identity-certificate)`);
    return { source: 'external_ca', certificate: external };
  }
  const certificate = await currentUserIdentityCertificate(knex, orgId, userId);
  const subCa = certificate?.issuer_id ? await findCertificateById(knex, certificate.issuer_id) : undefined;
  if (!certificate || !subCa || certificateStatus(subCa) !== 'valid') throw new IdentityCertificateMissingError();
  return { source: 'service_ca', certificate, subCa };
}

export async function loadPersonSigningIdentity(deps: { knex: Knex; vault: KeyVault }, orgId: string, userId: string): Promise<SigningIdentity> {
  const inForce = await personCertificateInForce(deps.knex, orgId, userId);
  if (inForce.source === 'external_ca') {
    const c = inForce.certificate;
    const chainDer = externalChainDer(c);
    const key = await signingKeyFor(deps.vault, { key_name: c.key_name, fingerprint_sha256: c.fingerprint_sha256, der: chainDer[0]!, role: 'identity', serial: c.serial });
    return { key, chainDer, serial: c.serial, subject: c.certificate_subject, external: true };
  }
  const { certificate, subCa } = inForce;
  const key = await signingKeyFor(deps.vault, certificate);
  return { key, chainDer: [new Uint8Array(certificate.der), new Uint8Array(subCa.der)], serial: certificate.serial, subject: certificate.subject };
}
