/**
 * The certificate_requests table: certificate requests (organisations', and an operator's for the OCSP responder's),
 * from asked (pending) through claimed by an issuer (working) to answered (done with the certificate, or failed with
 * an error code).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './certificates.js';

/**
 * ensure: a certificate only when the organisation has none it may sign with; rotate: always a new one, new key;
 * identity: a new identity certificate for a user; revoke: revoke an identity certificate (the CRL needs the CA key);
 * ocsp: a new delegated OCSP responder certificate now (an operator's; of no organisation).
 */
export type CertificateRequestKind = 'ensure' | 'rotate' | 'identity' | 'revoke' | 'ocsp';

export type CertificateRequestErrorCode = 'no_signing_certificate' | 'no_issuing_ca' | 'vault_unavailable' | 'not_found' | 'issuance_failed' | 'name_required';

export interface CertificateRequestAnswer {
  status: string;
  certificate_id: string | null;
  error_code: CertificateRequestErrorCode | null;
  error_message: string | null;
}

export interface ClaimedCertificateRequest {
  id: string;
  /** Null for kind ocsp only. */
  org_id: string | null;
  kind: CertificateRequestKind;
  /** identity: the user the certificate is for. */
  user_id: string | null;
  /** revoke: the certificate to revoke. */
  certificate_id: string | null;
  revocation_reason: string | null;
}

/** `subject`: the user (identity), or the certificate and reason (revoke). */
export async function insertCertificateRequest(
  db: Db,
  orgId: string | null,
  kind: CertificateRequestKind,
  subject: { userId?: string; certificateId?: string; reason?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await db('certificate_requests').insert({ id, org_id: orgId, kind, user_id: subject.userId ?? null, certificate_id: subject.certificateId ?? null, revocation_reason: subject.reason ?? null });
  return id;
}

export async function findCertificateRequestAnswer(db: Db, id: string): Promise<CertificateRequestAnswer | undefined> {
  return (await db('certificate_requests').where({ id }).first('status', 'certificate_id', 'error_code', 'error_message')) as CertificateRequestAnswer | undefined;
}

/**
 * Claims up to `limit` open requests, oldest first: pending ones, and those claimed before `staleBefore` (their
 * issuer died). FOR UPDATE SKIP LOCKED, so several issuers take turns.
 */
export async function claimCertificateRequests(knex: Knex, limit: number, staleBefore: Date): Promise<ClaimedCertificateRequest[]> {
  return (await knex.transaction(async (trx) => {
    const open = trx('certificate_requests')
      .where((q) => q.where({ status: 'pending' }).orWhere((w) => w.where({ status: 'working' }).where('claimed_at', '<', staleBefore)))
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .select('id');
    return trx('certificate_requests').whereIn('id', open).update({ status: 'working', claimed_at: new Date() }).returning(['id', 'org_id', 'kind', 'user_id', 'certificate_id', 'revocation_reason']);
  })) as ClaimedCertificateRequest[];
}

export async function markCertificateRequestDone(db: Db, id: string, certificateId: string): Promise<void> {
  await db('certificate_requests').where({ id }).update({ status: 'done', certificate_id: certificateId, done_at: new Date() });
}

export async function markCertificateRequestFailed(db: Db, id: string, code: CertificateRequestErrorCode, message: string): Promise<void> {
  await db('certificate_requests').where({ id }).update({ status: 'failed', error_code: code, error_message: message, done_at: new Date() });
}

/** Drops answered requests answered before `before`; returns how many. */
export function deleteAnsweredCertificateRequests(db: Db, before: Date): Promise<number> {
  return db('certificate_requests').whereIn('status', ['done', 'failed']).where('done_at', '<', before).delete();
}
