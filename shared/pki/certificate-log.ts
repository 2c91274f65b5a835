import type { Certificate, CertificateRole } from '../db/repositories/certificates.js';

/** How a certificate appears in a log line: who it is, never its DER (a Uint8Array logs as {"0":48,"1":130,...}). */
export interface CertificateLogFields {
  /** Not `role`: that key is the process role bound to child loggers (`logger.child({ role: 'ocsp' })`). */
  certificateRole: CertificateRole;
  serial: string;
  subject: string;
  fingerprintSha256: string;
  notAfter: Date;
}

export function certificateLogFields(c: Pick<Certificate, 'role' | 'serial' | 'subject' | 'fingerprint_sha256' | 'not_after'>): CertificateLogFields {
  return { certificateRole: c.role, serial: c.serial, subject: c.subject, fingerprintSha256: c.fingerprint_sha256, notAfter: c.not_after };
}
