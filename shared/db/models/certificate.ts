import { Model } from 'objection';
import type { CrlReason } from '../../pki/crl-reasons.js';

export const CERTIFICATE_ROLES = ['root', 'sub_ca', 'leaf', 'tsa'] as const;
export type CertificateRole = (typeof CERTIFICATE_ROLES)[number];

/** Derived, never stored: revocation wins over the validity window. */
export type CertificateStatus = 'valid' | 'revoked' | 'expired' | 'not_yet_valid';

/** One certificate the service issued (migrations/002_pki.ts). */
export class Certificate extends Model {
  static override tableName = 'certificates';
  declare id: string;
  /** Canonical hex (shared/pki/serial.ts). */
  declare serial: string;
  declare role: CertificateRole;
  /** The issuing CA's row; null for a root. */
  declare issuer_id: string | null;
  /** The organisation a leaf signs for; null for CAs, the TSA and the service's own leaf. */
  declare org_id: string | null;
  /** Name of the subject key in the vault. */
  declare key_name: string;
  declare subject: string;
  declare issuer: string;
  declare not_before: Date;
  declare not_after: Date;
  declare der: Uint8Array;
  declare fingerprint_sha256: string;
  declare revoked_at: Date | null;
  declare revocation_reason: CrlReason | null;
  declare created_at: Date;

  status(now: Date = new Date()): CertificateStatus {
    return certificateStatus(this, now);
  }
}

export function certificateStatus(
  row: Pick<Certificate, 'revoked_at' | 'not_before' | 'not_after'>,
  now: Date = new Date(),
): CertificateStatus {
  if (row.revoked_at) return 'revoked';
  if (row.not_after.getTime() <= now.getTime()) return 'expired';
  if (row.not_before.getTime() > now.getTime()) return 'not_yet_valid';
  return 'valid';
}
