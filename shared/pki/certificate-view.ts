/** A certificate as the API shows it (GET /org/signing-certificate) and as webhook events carry it. */
import { certificateStatus, type Certificate } from '../db/repositories/certificates.js';
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
