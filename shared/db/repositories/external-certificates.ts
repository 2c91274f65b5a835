/**
 * The external_certificate_requests table: requests for a certificate from an external CA, and the certificate each
 * one ended with (migrations/013_external_certificates.ts, 024_identity_leftovers.ts): an organisation's, for its
 * signing certificate, and its people's, for their identity certificates. Every query is scoped to an owner (see
 * RequestOwner) except the scheduler's, which creates the keys and CSRs of every request.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from './certificates.js';

/** The subject an organisation asks for, by X.520 short name. */
export interface RequestedSubject {
  CN: string;
  O: string;
  /** Required of an organisation's request; a person's has it when PKI_COUNTRY is set. */
  C?: string;
  OU?: string;
  L?: string;
  ST?: string;
}

export type ExternalRequestStatus = 'creating' | 'pending' | 'accepted' | 'failed';

/** What a request is for: the organisation's signing certificate, or a person's identity certificate (CAWG). */
export type ExternalRequestPurpose = 'signing' | 'identity';

/**
 * Whose requests: an organisation id alone means the organisation's own (its signing certificate); a person, that
 * person's identity certificates. One never sees the other's.
 */
export type RequestOwner = string | { orgId: string; userId: string };

export const ownerOrg = (owner: RequestOwner): string => (typeof owner === 'string' ? owner : owner.orgId);

/** The rows of `owner`. */
function owned(db: Db, owner: RequestOwner) {
  const q = db('external_certificate_requests');
  return typeof owner === 'string' ? q.where({ org_id: owner, purpose: 'signing' }) : q.where({ org_id: owner.orgId, purpose: 'identity', user_id: owner.userId });
}

export interface ExternalCertificateRow {
  id: string;
  org_id: string;
  subject: RequestedSubject;
  key_name: string;
  status: ExternalRequestStatus;
  csr_pem: string | null;
  error_code: string | null;
  error_message: string | null;
  chain_pem: string | null;
  serial: string | null;
  certificate_subject: string | null;
  certificate_issuer: string | null;
  not_before: Date | null;
  not_after: Date | null;
  fingerprint_sha256: string | null;
  created_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  revocation_reason: string | null;
  revocation_recorded_at: Date | null;
  purpose: ExternalRequestPurpose;
  /** identity: the person (null once they are deleted). */
  user_id: string | null;
  /** identity: the e-mail address asked for in the subjectAltName. */
  email: string | null;
}

/** An accepted row: its certificate columns are set. */
export type AcceptedExternalCertificate = ExternalCertificateRow & {
  status: 'accepted';
  chain_pem: string;
  serial: string;
  certificate_subject: string;
  certificate_issuer: string;
  not_before: Date;
  not_after: Date;
  fingerprint_sha256: string;
  accepted_at: Date;
};


/** `email`: a person's request, the address to ask for in the subjectAltName. */
export async function insertExternalRequest(db: Db, owner: RequestOwner, subject: RequestedSubject, keyNameOf: (id: string) => string, email?: string): Promise<string> {
  const id = randomUUID();
  const person = typeof owner === 'string' ? { purpose: 'signing' } : { purpose: 'identity', user_id: owner.userId, email };
  await db('external_certificate_requests').insert({ id, org_id: ownerOrg(owner), subject: JSON.stringify(subject), key_name: keyNameOf(id), ...person });
  return id;
}

export async function findExternalRequest(db: Db, owner: RequestOwner, id: string): Promise<ExternalCertificateRow | undefined> {
  return (await owned(db, owner).where({ id }).first()) as ExternalCertificateRow | undefined;
}

/** The owner's requests, newest first. */
export async function listExternalRequests(db: Db, owner: RequestOwner, limit: number): Promise<ExternalCertificateRow[]> {
  return (await owned(db, owner).orderBy('created_at', 'desc').limit(limit)) as ExternalCertificateRow[];
}

/** The owner's requests still open: their key being made (creating) or waiting for the CA's chain (pending). */
export async function countOpenExternalRequests(db: Db, owner: RequestOwner): Promise<number> {
  const [row] = (await owned(db, owner).whereIn('status', ['creating', 'pending']).count({ n: '*' })) as { n: string | number }[];
  return Number(row!.n);
}

/** Ends an open request of the owner as withdrawn (failed, code `withdrawn`); false when it was not open. */
export async function markRequestWithdrawn(db: Db, owner: RequestOwner, id: string): Promise<boolean> {
  const n = await owned(db, owner)
    .where({ id })
    .whereIn('status', ['creating', 'pending'])
    .update({ status: 'failed', error_code: 'withdrawn', error_message: typeof owner === 'string' ? 'withdrawn by an admin' : 'withdrawn' });
  return n > 0;
}

/** Requests whose key and CSR are still to be made, oldest first (every organisation: for the scheduler). */
export async function requestsAwaitingKeys(db: Db, limit: number): Promise<ExternalCertificateRow[]> {
  return (await db('external_certificate_requests').where({ status: 'creating' }).orderBy('created_at').limit(limit)) as ExternalCertificateRow[];
}

/** Records the CSR; only a request still being created moves (a second scheduler's answer is dropped). */
export async function markRequestPending(db: Db, id: string, csrPem: string): Promise<void> {
  await db('external_certificate_requests').where({ id, status: 'creating' }).update({ status: 'pending', csr_pem: csrPem });
}

export async function markRequestFailed(db: Db, id: string, code: string, message: string): Promise<void> {
  await db('external_certificate_requests').where({ id, status: 'creating' }).update({ status: 'failed', error_code: code, error_message: message });
}

export interface AcceptedCertificateFields {
  chainPem: string;
  serial: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  fingerprintSha256: string;
}

/** Stores the accepted chain on a pending request; false when the request is no longer pending. */
export async function markRequestAccepted(db: Db, owner: RequestOwner, id: string, c: AcceptedCertificateFields): Promise<boolean> {
  const n = await owned(db, owner).where({ id, status: 'pending' }).update({
    status: 'accepted',
    chain_pem: c.chainPem,
    serial: c.serial,
    certificate_subject: c.subject,
    certificate_issuer: c.issuer,
    not_before: c.notBefore,
    not_after: c.notAfter,
    fingerprint_sha256: c.fingerprintSha256,
    accepted_at: new Date(),
  });
  return n > 0;
}

/** The owner's most recently accepted external certificate (revoked and expired ones included). */
export async function newestAcceptedExternal(db: Db, owner: RequestOwner): Promise<AcceptedExternalCertificate | undefined> {
  return (await owned(db, owner).where({ status: 'accepted' }).orderBy('accepted_at', 'desc').first()) as AcceptedExternalCertificate | undefined;
}

/**
 * People's accepted external identity certificates with this serial (lowercase hex) and, in their subject, this CN:
 * what a verified file's identity assertion may name (serials are unique per CA only, hence the name too).
 */
export async function acceptedIdentitiesBySerial(db: Db, serial: string, commonName: string): Promise<AcceptedExternalCertificate[]> {
  const rows = (await db('external_certificate_requests').where({ purpose: 'identity', status: 'accepted' }).whereRaw('lower(serial) = ?', [serial.toLowerCase()])) as AcceptedExternalCertificate[];
  return rows.filter((r) => r.certificate_subject.split(',').includes(`CN=${commonName}`));
}

/**
 * Each organisation's newest accepted external certificate when it is unrevoked and expires between `now` and `until`
 * (every organisation: for the scheduler's expiry notices). Whether it is still the one the organisation signs with
 * (no service CA certificate since) is the caller's to check (externalCertificateInForce).
 */
export async function newestExternalExpiringBy(db: Db, now: Date, until: Date): Promise<AcceptedExternalCertificate[]> {
  const newest = db('external_certificate_requests')
    .where({ status: 'accepted', purpose: 'signing' })
    .distinctOn('org_id')
    .orderBy([{ column: 'org_id' }, { column: 'accepted_at', order: 'desc' }])
    .select('id');
  return (await db('external_certificate_requests')
    .whereIn('id', newest)
    .whereNull('revoked_at')
    .where('not_after', '>', now)
    .where('not_after', '<=', until)) as AcceptedExternalCertificate[];
}

/** Records the CA's revocation of an accepted certificate (the first record stands); false when there is none to revoke. */
export async function markExternalRevoked(db: Db, owner: RequestOwner, id: string, revokedAt: Date, reason: string): Promise<boolean> {
  const n = await owned(db, owner)
    .where({ id, status: 'accepted' })
    .whereNull('revoked_at')
    .update({ revoked_at: revokedAt, revocation_reason: reason, revocation_recorded_at: new Date() });
  return n > 0;
}

/**
 * A person leaves: their accepted certificates not yet recorded revoked are recorded so (at `at`, for `reason`), and
 * their open requests withdrawn. Returns the serials recorded revoked.
 */
export async function retirePersonExternalCertificates(db: Db, owner: { orgId: string; userId: string }, at: Date, reason: string): Promise<string[]> {
  const rows = (await owned(db, owner)
    .where({ status: 'accepted' })
    .whereNull('revoked_at')
    .update({ revoked_at: at, revocation_reason: reason, revocation_recorded_at: at }, ['serial'])) as { serial: string }[];
  await owned(db, owner).whereIn('status', ['creating', 'pending']).update({ status: 'failed', error_code: 'withdrawn', error_message: 'withdrawn: the person left the organisation' });
  return rows.map((r) => r.serial);
}
