/**
 * The delegated OCSP responder's certificate (RFC 6960 4.2.2.2): issued by the current sub-CA for OCSP_KEY_NAME,
 * EKU OCSPSigning and id-pkix-ocsp-nocheck (certificate-templates.ts), so the OCSP role signs the sub-CA's answers
 * with a key of its own and embeds the certificate, which is what c2pa-rs needs to take a stapled answer. The
 * scheduler (scheduler/ocsp-responder-job.ts) keeps one in force: it issues the next when a third of the lifetime
 * (OCSP_RESPONDER_VALIDITY_DAYS) is left, and when the sub-CA or the key changed. The OCSP role hears of each
 * (an `issued` notice of role `ocsp`) and signs with the new one from then on; the older stays valid for answers
 * already given.
 */
import { recordAuditEvent } from '../audit/record.js';
import { newestUsable, type Certificate } from '../db/repositories/certificates.js';
import { certificateLogFields } from './certificate-log.js';
import { announceIssued, issueOcspResponder, issuingSubCa } from './issuance.js';
import type { PkiDeps } from './pki-deps.js';
import { withPkiLock } from './pki-lock.js';
import { holdsKey } from './signing-keys.js';

const DAY_MS = 86_400_000;

export interface OcspResponderOutcome {
  certificate: Certificate;
  /** A new certificate was issued by this call. */
  issued: boolean;
}

/**
 * The responder certificate in force, issuing one when there is none under the current sub-CA for the configured
 * key, or when the newest has less than `renewWithinMs` left (default: a third of its configured lifetime). A
 * PkiError (not_initialised) before the PKI has a sub-CA.
 */
export async function ensureOcspResponder(deps: PkiDeps, options: { renewWithinMs?: number } = {}): Promise<OcspResponderOutcome> {
  const key = await deps.vault.ensureKey(deps.config.ocspKeyName);
  const renewWithinMs = options.renewWithinMs ?? (deps.config.pki.ocspResponderValidityDays * DAY_MS) / 3;
  const outcome = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const { subCa, subCaKey } = await issuingSubCa(trx, deps.vault, 'an OCSP responder certificate', now);
    const current = await newestUsable(trx, 'ocsp', now, subCa.id);
    if (current && current.key_name === key.name && holdsKey(current, key) && current.not_after.getTime() - now.getTime() > renewWithinMs) {
      return { certificate: current, issued: false };
    }
    const certificate = await issueOcspResponder(trx, deps.config, subCa, subCaKey, key, now);
    await recordAuditEvent(trx, { action: 'certificate.issued', actor: { type: 'service', role: 'scheduler' }, orgId: null, target: { type: 'certificate', id: certificate.serial }, details: { role: 'ocsp', subject: certificate.subject, not_after: certificate.not_after } });
    return { certificate, issued: true };
  });
  if (outcome.issued) {
    deps.logger?.info(certificateLogFields(outcome.certificate), 'OCSP responder certificate issued');
    await announceIssued(deps, [outcome.certificate]);
  }
  return outcome;
}
