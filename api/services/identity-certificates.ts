/**
 * People's identity certificates as the web role shows and asks for them: issuance and revocation are requested
 * through the one door (shared/pki/certificate-requests.ts) and carried out by the scheduler, which holds the CA keys.
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import { awaitCertificateRequest, ISSUANCE_WAIT_MS, obtainIdentityCertificate, requestIdentityRevocation, type CertificateRequestOutcome } from '../../shared/pki/certificate-requests.js';
import { certificateStatus, findCertificateById, type Certificate } from '../../shared/db/repositories/certificates.js';
import { unrevokedUserIdentityCertificateIds, userIdentityCertificates } from '../../shared/db/repositories/identity-certificates.js';
import { ServiceError } from '../../shared/errors.js';
import { findOrgUser, findUserById, setUserName, type UserView } from '../../shared/db/repositories/users.js';
import type { CrlReason } from '../../shared/domain/crl-reasons.js';
import type { Config } from '../../shared/config.js';
import { findOrganisation } from '../../shared/db/repositories/organisations.js';
import { personSubject } from '../../shared/pki/identity-certificates.js';
import { derToPem, pemBlocks } from '../../shared/pki/pem.js';
import { personCertificateInForce, type PersonCertificate } from '../../shared/pki/person-signing-identity.js';
import { ApiError, notFound } from '../errors.js';
import { SERVICE_CA_LABEL } from './certificates.js';
import { createExternalRequest, type ExternalRequestView } from './external-certificates.js';

/** The rfc822Name of the certificate's subjectAltName (Node writes it `email:<address>`). */
function emailOf(der: Uint8Array): string {
  const san = new X509Certificate(der).subjectAltName ?? '';
  return /(?:^|, )email:([^,]+)/.exec(san)?.[1] ?? '';
}

/** The certificate as the API shows it, with its issuer's certificate for the chain. */
async function identityView(knex: Knex, c: Certificate) {
  const issuer = c.issuer_id ? await findCertificateById(knex, c.issuer_id) : undefined;
  const pem = derToPem(c.der);
  return {
    serial: c.serial,
    subject: c.subject,
    issuer: c.issuer,
    email: emailOf(c.der),
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    status: certificateStatus(c),
    revoked_at: c.revoked_at?.toISOString() ?? null,
    revocation_reason: c.revocation_reason as string | null,
    certificate_pem: pem,
    chain_pem: pem + (issuer ? derToPem(issuer.der) : ''),
    issued_by: SERVICE_CA_LABEL,
  };
}

export type IdentityCertificateView = Awaited<ReturnType<typeof identityView>>;

/** The certificate the person signs as with, in the same shape, whichever CA issued it. */
async function inForceView(knex: Knex, inForce: PersonCertificate): Promise<IdentityCertificateView> {
  if (inForce.source === 'service_ca') return identityView(knex, inForce.certificate);
  const c = inForce.certificate;
  const [leaf] = pemBlocks(c.chain_pem);
  return {
    serial: c.serial,
    subject: c.certificate_subject,
    issuer: c.certificate_issuer,
    email: emailOf(leaf!.der),
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    status: 'valid',
    revoked_at: null,
    revocation_reason: null,
    certificate_pem: derToPem(leaf!.der),
    chain_pem: c.chain_pem,
    issued_by: `external CA: ${c.certificate_issuer}`,
  };
}

export async function setMyName(knex: Knex, userId: string, name: string): Promise<UserView> {
  const user = await setUserName(userId, name, knex);
  if (!user) throw notFound('user');
  return user.toPublic();
}

/** The outcome of a request the scheduler did not answer with a certificate, as an API error. */
function refusal(outcome: Exclude<CertificateRequestOutcome, { status: 'done' }>): ApiError {
  if (outcome.status === 'pending') {
    return new ApiError('unavailable', 'issuance_pending', 'the request is with the scheduler (which issues and revokes certificates) but not answered yet; it will be: check GET /auth/me/identity-certificate', { retryAfterSeconds: 30 });
  }
  if (outcome.code === 'name_required') return new ApiError('conflict', 'name_required', outcome.message);
  if (outcome.code === 'vault_unavailable') return new ApiError('unavailable', 'vault_unavailable', 'the key vault could not be reached; try again shortly', { retryAfterSeconds: 5 });
  if (outcome.code === 'not_found') return notFound('user');
  return new ApiError('unavailable', 'no_issuing_ca', outcome.message, { retryAfterSeconds: 60 });
}

/** Issues the user a new identity certificate (through the scheduler) and waits for it, bounded. */
export async function issueMyIdentityCertificate(knex: Knex, orgId: string, userId: string): Promise<IdentityCertificateView> {
  const user = await findUserById(userId, knex);
  if (!user || user.org_id !== orgId) throw notFound('user');
  if (!user.name) throw new ApiError('conflict', 'name_required', 'set your name first (PATCH /auth/me with {"name": ...}): it becomes the certificate\'s CN');
  const outcome = await obtainIdentityCertificate(knex, orgId, userId, ISSUANCE_WAIT_MS);
  if (outcome.status !== 'done') throw refusal(outcome);
  return identityView(knex, (await findCertificateById(knex, outcome.certificateId))!);
}

/** The person's certificate in force, or undefined when they have none that may sign. */
const inForceOrNone = (knex: Knex, orgId: string, userId: string) =>
  personCertificateInForce(knex, orgId, userId).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'identity_certificate_missing') return undefined;
    throw err;
  });

export async function myIdentityCertificates(knex: Knex, orgId: string, userId: string) {
  const [user, rows, current] = await Promise.all([findUserById(userId, knex), userIdentityCertificates(knex, orgId, userId), inForceOrNone(knex, orgId, userId)]);
  return {
    name: user?.name ?? null,
    current: current ? await inForceView(knex, current) : null,
    certificates: await Promise.all(rows.map((c) => identityView(knex, c))),
  };
}

/**
 * A new vault key and CSR for the user's identity certificate from the organisation's external CA: subject CN = their
 * name, O = the organisation's (C = PKI_COUNTRY), their e-mail address in subjectAltName, EKU emailProtection.
 */
export async function requestMyExternalIdentity(knex: Knex, config: Config, orgId: string, userId: string): Promise<ExternalRequestView> {
  const [user, org] = await Promise.all([findUserById(userId, knex), findOrganisation(orgId, knex)]);
  if (!user || user.org_id !== orgId || !org) throw notFound('user');
  if (!user.name) throw new ApiError('conflict', 'name_required', 'set your name first (PATCH /auth/me with {"name": ...}): it becomes the certificate\'s CN');
  const s = personSubject(config, user.name, org.name);
  const subject = { CN: s.commonName, O: s.organization!, ...(s.country ? { C: s.country } : {}) };
  return createExternalRequest(knex, config, { orgId, userId }, subject, user.email);
}

/** Asks the scheduler to revoke each unrevoked identity certificate of the user, in `db`; returns the request ids to wait on. */
async function requestUserIdentityRevocations(db: Knex, orgId: string, userId: string, reason: CrlReason): Promise<string[]> {
  const ids: string[] = [];
  for (const certificateId of await unrevokedUserIdentityCertificateIds(db, userId)) ids.push(await requestIdentityRevocation(db, orgId, certificateId, reason));
  return ids;
}

/** An admin revokes a user's identity certificates; waits for the scheduler, bounded. */
export async function revokeUserIdentityCertificates(knex: Knex, orgId: string, userId: string, reason: CrlReason): Promise<IdentityCertificateView[]> {
  if (!(await findOrgUser(orgId, userId, knex))) throw notFound('user');
  const requests = await knex.transaction((trx) => requestUserIdentityRevocations(trx, orgId, userId, reason));
  const revoked: IdentityCertificateView[] = [];
  for (const id of requests) {
    const outcome = await awaitCertificateRequest(knex, id, ISSUANCE_WAIT_MS);
    if (outcome.status !== 'done') throw refusal(outcome);
    revoked.push(await identityView(knex, (await findCertificateById(knex, outcome.certificateId))!));
  }
  return revoked;
}
