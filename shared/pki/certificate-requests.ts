/**
 * The one door to an organisation's signing certificate (this module owns the certificate_requests table). Roles
 * that must never sign with a CA key (web, worker) ask here; the scheduler, which holds the CA keys for the CRLs,
 * issues (scheduler/issuance-job.ts, through org-signing.ts). So the web and worker roles' vault identities need
 * only the organisations' own keys.
 *
 * A request is a row: written by whoever asks (in the caller's transaction when there is one, so a registration or
 * rename and its request commit together), claimed by an issuer with FOR UPDATE SKIP LOCKED (several schedulers take
 * turns), answered with the certificate or an error code. A claim an issuer left (it died) is taken again after
 * CLAIM_TIMEOUT_MS. Callers that need the answer now wait for it, bounded.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { VaultUnavailableError } from '../vault/types.js';
import { PkiError, type PkiDeps } from './authority.js';
import { ensureOrgCertificate, rotateOrgCertificate } from './org-signing.js';
import { NoSigningCertificateError } from './signing-identity.js';

type Db = Knex | Knex.Transaction;

/** ensure: a certificate only when the organisation has none it may sign with; rotate: always a new one, new key. */
export type CertificateRequestKind = 'ensure' | 'rotate';

export type CertificateRequestOutcome =
  | { status: 'done'; certificateId: string }
  | { status: 'failed'; code: CertificateRequestErrorCode; message: string }
  /** Not answered within the wait: the issuer (scheduler) is down or busy; the request stays and is answered later. */
  | { status: 'pending' };

export type CertificateRequestErrorCode = 'no_signing_certificate' | 'no_issuing_ca' | 'vault_unavailable' | 'not_found' | 'issuance_failed';

const CLAIM_TIMEOUT_MS = 60_000;
/** How long a caller that needs the certificate now (a rename, a rotation, a first signature) waits for the issuer. */
export const ISSUANCE_WAIT_MS = 15_000;
const POLL_MS = 50;

export async function requestOrgCertificate(db: Db, orgId: string, kind: CertificateRequestKind): Promise<string> {
  const id = randomUUID();
  await db('certificate_requests').insert({ id, org_id: orgId, kind });
  return id;
}

/** The request's answer once it has one, or `pending` after `timeoutMs`. */
export async function awaitCertificateRequest(knex: Knex, id: string, timeoutMs: number): Promise<CertificateRequestOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = (await knex('certificate_requests').where({ id }).first('status', 'certificate_id', 'error_code', 'error_message')) as
      | { status: string; certificate_id: string | null; error_code: CertificateRequestErrorCode | null; error_message: string | null }
      | undefined;
    if (!row) return { status: 'failed', code: 'not_found', message: 'the certificate request is gone (its organisation was deleted)' };
    if (row.status === 'done') return { status: 'done', certificateId: row.certificate_id! };
    if (row.status === 'failed') return { status: 'failed', code: row.error_code ?? 'issuance_failed', message: row.error_message ?? 'the certificate could not be issued' };
    if (Date.now() >= deadline) return { status: 'pending' };
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}

/** Asks and waits: what the web and worker roles call. */
export async function obtainOrgCertificate(knex: Knex, orgId: string, kind: CertificateRequestKind, timeoutMs: number): Promise<CertificateRequestOutcome> {
  return awaitCertificateRequest(knex, await requestOrgCertificate(knex, orgId, kind), timeoutMs);
}

interface ClaimedRequest {
  id: string;
  org_id: string;
  kind: CertificateRequestKind;
}

function errorOf(err: unknown): { code: CertificateRequestErrorCode; message: string } {
  if (err instanceof NoSigningCertificateError) return { code: 'no_signing_certificate', message: err.message };
  if (err instanceof PkiError) return { code: err.code === 'not_found' ? 'not_found' : 'no_issuing_ca', message: err.message };
  if (err instanceof VaultUnavailableError) return { code: 'vault_unavailable', message: 'the key vault could not be reached' };
  return { code: 'issuance_failed', message: 'the certificate could not be issued' };
}

/**
 * Issues what is asked, oldest first, up to `limit` requests; returns how many it answered. For the role holding the
 * CA keys only (scheduler/issuance-job.ts).
 */
/** Requests one issuer run claims at most; a full batch means more may be waiting. */
export const ANSWER_BATCH = 20;

export async function answerCertificateRequests(deps: PkiDeps, limit = ANSWER_BATCH): Promise<number> {
  const claimed = (await deps.knex.transaction(async (trx) => {
    const open = trx('certificate_requests')
      .where((q) => q.where({ status: 'pending' }).orWhere((w) => w.where({ status: 'working' }).where('claimed_at', '<', new Date(Date.now() - CLAIM_TIMEOUT_MS))))
      .orderBy('created_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .select('id');
    return trx('certificate_requests').whereIn('id', open).update({ status: 'working', claimed_at: new Date() }).returning(['id', 'org_id', 'kind']);
  })) as ClaimedRequest[];
  for (const request of claimed) {
    try {
      const certificate = request.kind === 'rotate' ? await rotateOrgCertificate(deps, request.org_id) : await ensureOrgCertificate(deps, request.org_id);
      await deps.knex('certificate_requests').where({ id: request.id }).update({ status: 'done', certificate_id: certificate.id, done_at: new Date() });
    } catch (err) {
      const { code, message } = errorOf(err);
      if (code === 'issuance_failed' || code === 'vault_unavailable') deps.logger?.warn({ err, orgId: request.org_id, kind: request.kind }, 'organisation certificate request failed');
      await deps.knex('certificate_requests').where({ id: request.id }).update({ status: 'failed', error_code: code, error_message: message.slice(0, 500), done_at: new Date() });
    }
  }
  return claimed.length;
}

/** Answered requests are kept a week (for operators' questions), then dropped. */
export async function pruneCertificateRequests(knex: Knex, olderThanMs = 7 * 24 * 3600_000): Promise<number> {
  return knex('certificate_requests').whereIn('status', ['done', 'failed']).where('done_at', '<', new Date(Date.now() - olderThanMs)).delete();
}
