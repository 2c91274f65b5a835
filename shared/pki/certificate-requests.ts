/**
 * The one door to an organisation's signing certificate (requests are rows of certificate_requests). Roles
 * that must never sign with a CA key (web, worker) ask here; the scheduler, which holds the CA keys for the CRLs,
 * issues (scheduler/issuance-job.ts, through org-signing.ts). So the web and worker roles' vault identities need
 * only the organisations' own keys. People's identity certificates, their revocations and an operator's new OCSP
 * responder certificate go through the same door.
 *
 * A request is a row: written by whoever asks (in the caller's transaction when there is one, so a registration or
 * rename and its request commit together), claimed by an issuer with FOR UPDATE SKIP LOCKED (several schedulers take
 * turns), answered with the certificate or an error code. A claim an issuer left (it died) is taken again after
 * CLAIM_TIMEOUT_MS. Callers that need the answer now wait for it, bounded.
 */
import type { Knex } from 'knex';
import {
  claimCertificateRequests,
  deleteAnsweredCertificateRequests,
  findCertificateRequestAnswer,
  insertCertificateRequest,
  markCertificateRequestDone,
  markCertificateRequestFailed,
  type CertificateRequestErrorCode,
  type ClaimedCertificateRequest,
} from '../db/repositories/certificate-requests.js';
import { recordAuditEvent } from '../audit/record.js';
import type { Certificate, Db } from '../db/repositories/certificates.js';
import { isCrlReason, type CrlReason } from '../domain/crl-reasons.js';
import { ServiceError } from '../errors.js';
import { issueUserIdentityCertificate, revokeIdentityCertificate } from './identity-certificates.js';
import { ensureOcspResponder } from './ocsp-responder.js';
import { ensureOrgCertificate, rotateOrgCertificate } from './org-signing.js';
import type { PkiDeps } from './pki-deps.js';


export type CertificateRequestOutcome =
  | { status: 'done'; certificateId: string }
  | { status: 'failed'; code: CertificateRequestErrorCode; message: string }
  /** Not answered within the wait: the issuer (scheduler) is down or busy; the request stays and is answered later. */
  | { status: 'pending' };

const CLAIM_TIMEOUT_MS = 60_000;
/** How long a caller that needs the certificate now (a rename, a rotation, a first signature) waits for the issuer. */
export const ISSUANCE_WAIT_MS = 15_000;
const POLL_MS = 50;

export async function requestOrgCertificate(db: Db, orgId: string, kind: 'ensure' | 'rotate'): Promise<string> {
  const id = await insertCertificateRequest(db, orgId, kind);
  await recordAuditEvent(db, { action: 'certificate.requested', actor: { type: 'service', role: 'web' }, orgId, target: { type: 'certificate_request', id }, details: { kind } });
  return id;
}

/** Asks for a new identity certificate for the user and waits for it, bounded. */
export async function obtainIdentityCertificate(knex: Knex, orgId: string, userId: string, timeoutMs: number): Promise<CertificateRequestOutcome> {
  const id = await knex.transaction(async (trx) => {
    const requestId = await insertCertificateRequest(trx, orgId, 'identity', { userId });
    await recordAuditEvent(trx, { action: 'certificate.requested', actor: { type: 'service', role: 'web' }, orgId, target: { type: 'certificate_request', id: requestId }, details: { kind: 'identity', user_id: userId } });
    return requestId;
  });
  return awaitCertificateRequest(knex, id, timeoutMs);
}

/**
 * Asks for an identity certificate to be revoked; written in the caller's transaction (a user's deletion), so that
 * the revocation is asked for if and only if the change commits. The scheduler revokes it (OCSP, then leaf.crl).
 */
export async function requestIdentityRevocation(db: Db, orgId: string, certificateId: string, reason: CrlReason): Promise<string> {
  const id = await insertCertificateRequest(db, orgId, 'revoke', { certificateId, reason });
  await recordAuditEvent(db, { action: 'certificate.requested', actor: { type: 'service', role: 'web' }, orgId, target: { type: 'certificate_request', id }, details: { kind: 'revoke', certificate_id: certificateId, reason } });
  return id;
}

/**
 * An operator asks for a new delegated OCSP responder certificate now (`npm run pki -- rotate-ocsp`), and waits for
 * the scheduler's answer, bounded: `pending` when it has not answered (the request stands).
 */
export async function obtainOcspResponderRotation(knex: Knex, timeoutMs: number): Promise<CertificateRequestOutcome & { requestId: string }> {
  const id = await knex.transaction(async (trx) => {
    const requestId = await insertCertificateRequest(trx, null, 'ocsp');
    await recordAuditEvent(trx, { action: 'certificate.requested', actor: { type: 'operator', command: 'pki rotate-ocsp' }, orgId: null, target: { type: 'certificate_request', id: requestId }, details: { kind: 'ocsp' } });
    return requestId;
  });
  return { ...(await awaitCertificateRequest(knex, id, timeoutMs)), requestId: id };
}

/** The request's answer once it has one, or `pending` after `timeoutMs`. */
export async function awaitCertificateRequest(knex: Knex, id: string, timeoutMs: number): Promise<CertificateRequestOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findCertificateRequestAnswer(knex, id);
    if (!row) return { status: 'failed', code: 'not_found', message: 'the certificate request is gone (its organisation was deleted)' };
    if (row.status === 'done') return { status: 'done', certificateId: row.certificate_id! };
    if (row.status === 'failed') return { status: 'failed', code: row.error_code ?? 'issuance_failed', message: row.error_message ?? 'the certificate could not be issued' };
    if (Date.now() >= deadline) return { status: 'pending' };
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}

/** Asks and waits: what the web and worker roles call. */
export async function obtainOrgCertificate(knex: Knex, orgId: string, kind: 'ensure' | 'rotate', timeoutMs: number): Promise<CertificateRequestOutcome> {
  return awaitCertificateRequest(knex, await requestOrgCertificate(knex, orgId, kind), timeoutMs);
}

/** Codes of errors a request's answer keeps as they are. */
const ANSWERED_CODES: readonly CertificateRequestErrorCode[] = ['no_signing_certificate', 'vault_unavailable', 'not_found', 'name_required'];

/**
 * The issuance edge: the code and words a failed request is answered with. The error's own code when the request
 * table has it; any other refusal (no CA, or one unusable) is no_issuing_ca; an internal failure is issuance_failed.
 */
function errorOf(err: unknown): { code: CertificateRequestErrorCode; message: string } {
  if (!(err instanceof ServiceError) || err.kind === 'internal') return { code: 'issuance_failed', message: 'the certificate could not be issued' };
  return { code: ANSWERED_CODES.find((code) => code === err.code) ?? 'no_issuing_ca', message: err.publicMessage };
}

/** Requests one issuer run claims at most; a full batch means more may be waiting. */
export const ANSWER_BATCH = 20;

/**
 * Issues what is asked, oldest first, up to `limit` requests; returns how many it answered. For the role holding the
 * CA keys only (scheduler/issuance-job.ts).
 */
export async function answerCertificateRequests(deps: PkiDeps, limit = ANSWER_BATCH): Promise<number> {
  const claimed = await claimCertificateRequests(deps.knex, limit, new Date(Date.now() - CLAIM_TIMEOUT_MS));
  for (const request of claimed) {
    try {
      const certificate = await answer(deps, request);
      await deps.knex.transaction(async (trx) => {
        await markCertificateRequestDone(trx, request.id, certificate.id);
        // A revocation (revocation.ts) and an OCSP responder certificate (ocsp-responder.ts) are recorded where they
        // happen; every other answer is an issued certificate.
        if (request.kind !== 'revoke' && request.kind !== 'ocsp') {
          await recordAuditEvent(trx, { action: 'certificate.issued', actor: { type: 'service', role: 'scheduler' } as const, orgId: request.org_id, target: { type: 'certificate', id: certificate.serial }, details: { request_id: request.id, kind: request.kind, subject: certificate.subject, not_after: certificate.not_after } });
        }
      });
    } catch (err) {
      const { code, message } = errorOf(err);
      if (code === 'issuance_failed' || code === 'vault_unavailable') deps.logger?.warn({ err, orgId: request.org_id, kind: request.kind }, 'organisation certificate request failed');
      await markCertificateRequestFailed(deps.knex, request.id, code, message.slice(0, 500));
    }
  }
  return claimed.length;
}

/** What each kind of request asks of the issuer. */
async function answer(deps: PkiDeps, request: ClaimedCertificateRequest): Promise<Certificate> {
  if (request.kind === 'ocsp') return (await ensureOcspResponder(deps, { renewWithinMs: Infinity })).certificate;
  if (!request.org_id) throw new Error(`certificate request ${request.id} (${request.kind}) names no organisation`);
  switch (request.kind) {
    case 'rotate':
      return rotateOrgCertificate(deps, request.org_id);
    case 'identity':
      if (!request.user_id) throw new ServiceError('not_found', 'not_found', 'the user is gone');
      return issueUserIdentityCertificate(deps, request.user_id);
    case 'revoke': {
      const reason = request.revocation_reason ?? 'unspecified';
      if (!request.certificate_id || !isCrlReason(reason)) throw new Error(`revocation request ${request.id} names no certificate or an unknown reason`);
      return revokeIdentityCertificate(deps, request.certificate_id, reason);
    }
    default:
      return ensureOrgCertificate(deps, request.org_id);
  }
}

/** Answered requests are kept a week (for operators' questions), then dropped. */
export function pruneCertificateRequests(knex: Knex, olderThanMs = 7 * 24 * 3600_000): Promise<number> {
  return deleteAnsweredCertificateRequests(knex, new Date(Date.now() - olderThanMs));
}
