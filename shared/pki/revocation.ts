/**
 * Revoking a certificate: recorded first, then announced (OCSP responders drop their cached answer), then the
 * affected CRL is issued.
 */
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit/record.js';
import type { AuditActor } from '../audit/vocabulary.js';
import { findCertificateBySerialForUpdate, markCertificateRevoked, type Certificate, type CertificateRole } from '../db/repositories/certificates.js';
import { deleteOcspResponsesOfSerial } from '../db/repositories/ocsp-responses.js';
import { recordWebhookEvent } from '../db/repositories/webhooks.js';
import { certificateEventView } from './certificate-view.js';
import { isCrlReason, type CrlReason } from '../domain/crl-reasons.js';
import { certificateLogFields } from './certificate-log.js';
import { publishCrl, type CrlOutcome } from './crl-publisher.js';
import { PkiError, RevocationFollowUpError } from './errors.js';
import type { PkiDeps } from './pki-deps.js';
import type { PkiEvents } from './pki-events.js';
import { normalizeSerialHex } from './serial.js';

export interface RevocationResult {
  certificate: Certificate;
  /** True when it was revoked before (time and reason of the first revocation are kept). */
  alreadyRevoked: boolean;
  crl: CrlOutcome;
}

/** Which CRL lists a certificate of each role. */
const CRL_OF_ROLE = { sub_ca: 'sub-ca.crl', leaf: 'leaf.crl', tsa: 'leaf.crl', ocsp: 'leaf.crl', identity: 'leaf.crl' } as const;

/**
 * The revocation's record, in the caller's transaction, of a certificate it holds locked (FOR UPDATE) and found
 * unrevoked: the row, its pre-signed OCSP answers dropped, the webhook and audit events. From the commit on the OCSP
 * responders answer revoked once they hear of it (PkiEvents); leaf.crl lists it once the CA key's holder reissues it.
 */
export async function recordRevocation(trx: Knex.Transaction, found: Certificate, reason: CrlReason, actor: AuditActor): Promise<Certificate> {
  // Whole seconds: what the CRL and OCSP encode, so both report the same time.
  const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const updated = await markCertificateRevoked(trx, found.id, revokedAt, reason);
  // Pre-signed "good" responses go with the revocation (ocsp/response-store.ts), before any copy hears of it.
  await deleteOcspResponsesOfSerial(trx, found.serial);
  if (updated.org_id) await recordWebhookEvent(trx, { orgId: updated.org_id, type: 'signing_certificate.revoked', data: certificateEventView(updated) });
  await recordAuditEvent(trx, { action: 'certificate.revoked', actor, orgId: updated.org_id ?? null, target: { type: 'certificate', id: found.serial }, details: { role: updated.role, reason, subject: updated.subject } });
  return updated;
}

/**
 * Revokes a certificate with an RFC 5280 reason, tells every OCSP responder at once and reissues the CRL
 * that lists it. Revoking again repeats the announcement and the CRL (a retry after a failure) without
 * changing the recorded time or reason. A root cannot be revoked: no CRL covers it, it is removed from
 * trust stores instead.
 */
export async function revokeCertificate(
  deps: PkiDeps & { events: PkiEvents },
  serialHex: string,
  reason: CrlReason,
): Promise<RevocationResult> {
  if (!isCrlReason(reason)) throw new PkiError(`unknown revocation reason "${String(reason)}"`, 'invalid');
  if (reason === 'removeFromCRL') throw new PkiError('removeFromCRL is not a reason to revoke (delta CRLs only)', 'invalid');
  let serial: string;
  try {
    serial = normalizeSerialHex(serialHex);
  } catch (err) {
    throw new PkiError((err as Error).message, 'invalid');
  }
  const { certificate, alreadyRevoked } = await deps.knex.transaction(async (trx) => {
    const found = await findCertificateBySerialForUpdate(trx, serial);
    if (!found) throw new PkiError(`no certificate with serial ${serial} was issued by this service`, 'not_found');
    if (found.role === 'root') throw new PkiError('a root CA cannot be revoked: remove it from trust stores instead', 'invalid');
    if (found.revoked_at) return { certificate: found, alreadyRevoked: true };
    return { certificate: await recordRevocation(trx, found, reason, { type: 'service', role: 'pki' }), alreadyRevoked: false };
  });
  deps.logger?.info({ ...certificateLogFields(certificate), reason: certificate.revocation_reason }, 'certificate revoked');
  try {
    // Announce before the CRL: OCSP answers matter most, and they need no vault signature.
    await deps.events.publish({ kind: 'revoked', serial });
    const crl = await publishCrl(deps, CRL_OF_ROLE[certificate.role as Exclude<CertificateRole, 'root'>]);
    return { certificate, alreadyRevoked, crl };
  } catch (err) {
    throw new RevocationFollowUpError(serial, err);
  }
}
