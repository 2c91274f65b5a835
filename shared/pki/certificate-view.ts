/** A certificate as the API shows it (GET /org/signing-certificate) and as webhook events carry it. */
import { certificateStatus, type Certificate } from '../db/repositories/certificates.js';
import type { ExternalCertificateRow } from '../db/repositories/external-certificates.js';
import { derToPem } from './pem.js';

export function certificateView(c: Certificate) {
  return {
    role: c.role,
    serial: c.serial,
    subject: c.subject,
    issuer: c.issuer,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    pem: derToPem(c.der),
  };
}

/** The `data` of signing_certificate.* webhook events: the certificate with its status and revocation. */
export function certificateEventView(c: Certificate, now = new Date()) {
  return {
    ...certificateView(c),
    status: certificateStatus(c, now),
    revoked_at: c.revoked_at?.toISOString() ?? null,
    revocation_reason: c.revocation_reason,
  };
}

/**
 * A request to an external CA and, once accepted, its certificate, as the API shows it (GET
 * /org/signing-certificate/requests) and as signing_certificate.* webhook events for external certificates carry it.
 */
export function externalRequestView(r: ExternalCertificateRow) {
  return {
    request_id: r.id,
    status: r.status === 'creating' ? ('creating_key' as const) : r.status,
    subject: r.subject,
    csr_pem: r.csr_pem,
    created_at: r.created_at.toISOString(),
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
    certificate:
      r.status === 'accepted'
        ? {
            serial: r.serial!,
            subject: r.certificate_subject!,
            issuer: r.certificate_issuer!,
            not_before: r.not_before!.toISOString(),
            not_after: r.not_after!.toISOString(),
            fingerprint_sha256: r.fingerprint_sha256!,
            chain_pem: r.chain_pem!,
            accepted_at: r.accepted_at!.toISOString(),
            revoked_at: r.revoked_at?.toISOString() ?? null,
            revocation_reason: r.revocation_reason,
          }
        : null,
  };
}
