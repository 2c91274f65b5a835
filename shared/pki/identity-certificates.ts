/**
 * People's X.509 identity certificates, for CAWG identity assertions (`cawg.x509.cose`): the subject is CN = the
 * person's name, O = their organisation's name; the e-mail address is in subjectAltName; EKU emailProtection; a vault
 * key of the person's own; issued by the sub-CA, so leaf.crl and the OCSP responder speak for it.
 *
 * Issued and revoked by the scheduler (the role holding the CA keys), on requests the web role writes
 * (certificate-requests.ts). A departure is revoked in the user's deletion's own transaction (departure.ts); the
 * scheduler then reissues leaf.crl.
 *
 * Keys are named `org-<org>-person-<user>-<n>`: the web and worker roles may sign with `org-*` keys only, and a
 * person's identity signature is made by the worker. Each certificate gets a new key.
 */
import { findCertificateById, insertCertificate, type Certificate } from '../db/repositories/certificates.js';
import { countUserIdentityCertificates, insertIdentityCertificate } from '../db/repositories/identity-certificates.js';
import { findOrganisation } from '../db/repositories/organisations.js';
import { findUserById } from '../db/repositories/users.js';
import type { CrlReason } from '../domain/crl-reasons.js';
import { ServiceError } from '../errors.js';
import { certificateLogFields } from './certificate-log.js';
import { issueIdentityCertificate, type SubjectInput } from './certificate-templates.js';
import { PkiError } from './errors.js';
import { announceIssued, issuingSubCa } from './issuance.js';
import { orgSubject } from './org-signing.js';
import type { PkiDeps } from './pki-deps.js';
import type { PkiEvents } from './pki-events.js';
import { withPkiLock } from './pki-lock.js';
import { revokeCertificate } from './revocation.js';

/** notBefore is set this far back (as for every certificate the service issues: slow validator clocks). */
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 3600_000;

export function identityKeyName(orgId: string, userId: string, generation: number): string {
  return `org-${orgId}-person-${userId}-${generation}`;
}

/** CN: the person's name; O: the organisation's (both cleaned and cut to 64 characters as organisations' are). */
export function personSubject(config: PkiDeps['config'], name: string, orgName: string): SubjectInput {
  const person = orgSubject(config, name);
  return { ...person, organization: orgSubject(config, orgName).organization };
}

/** A user without a name cannot be named in a certificate. */
export class NameRequiredError extends ServiceError {
  constructor() {
    super('conflict', 'name_required', 'the user has no name: set one first (PATCH /auth/me with {"name": ...}); it becomes the certificate\'s CN');
    this.name = 'NameRequiredError';
  }
}

/** Issues `userId` a new identity certificate, with a new key, under the current sub-CA. For the scheduler only. */
export async function issueUserIdentityCertificate(deps: PkiDeps, userId: string): Promise<Certificate> {
  const user = await findUserById(userId, deps.knex);
  if (!user) throw new PkiError(`no user ${userId}`, 'not_found');
  if (!user.name) throw new NameRequiredError();
  const org = await findOrganisation(user.org_id, deps.knex);
  if (!org) throw new PkiError(`no organisation ${user.org_id}`, 'not_found');
  const certificate = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const { subCa, subCaKey } = await issuingSubCa(trx, deps.vault, 'an identity certificate', now);
    const key = await deps.vault.ensureKey(identityKeyName(org.id, user.id, (await countUserIdentityCertificates(trx, user.id)) + 1));
    const wanted = new Date(now.getTime() + deps.config.pki.identityValidityDays * DAY_MS);
    const issued = await issueIdentityCertificate({
      subject: personSubject(deps.config, user.name!, org.name),
      email: user.email,
      subjectPublicKeySpki: key.publicKeySpki,
      issuer: { certificateDer: subCa.der, key: subCaKey },
      crlUrl: deps.config.crlUrl,
      ocspUrl: deps.config.ocspUrl,
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      // Never past the issuer (the template refuses it).
      notAfter: wanted > subCa.not_after ? subCa.not_after : wanted,
    });
    const f = issued.facts;
    const row = await insertCertificate(trx, {
      serial: f.serialHex,
      role: 'identity',
      issuerId: subCa.id,
      keyName: key.name,
      subject: f.subject,
      issuer: f.issuer,
      notBefore: f.notBefore,
      notAfter: f.notAfter,
      der: issued.der,
      fingerprintSha256: f.fingerprintSha256,
    });
    await insertIdentityCertificate(trx, { orgId: org.id, userId: user.id, certificateId: row.id });
    return row;
  });
  deps.logger?.info({ ...certificateLogFields(certificate), orgId: org.id, userId }, 'identity certificate issued');
  await announceIssued(deps, [certificate]);
  return certificate;
}

/** Revokes an identity certificate (a departure, an admin's decision): recorded, announced to OCSP, listed in leaf.crl. */
export async function revokeIdentityCertificate(deps: PkiDeps, certificateId: string, reason: CrlReason): Promise<Certificate> {
  const certificate = await findCertificateById(deps.knex, certificateId);
  if (!certificate || certificate.role !== 'identity') throw new PkiError(`no identity certificate ${certificateId}`, 'not_found');
  if (!deps.events) throw new Error('revoking needs the PKI events (OCSP responders must hear of it)');
  const result = await revokeCertificate({ ...deps, events: deps.events as PkiEvents }, certificate.serial, reason);
  return result.certificate;
}
