import type { Knex } from 'knex';
import { readAsset, type VerificationReport } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { Certificate } from '../../shared/db/models/certificate.js';
import { derToPem } from '../../shared/pki/pem.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { readLargeAssetFile } from './large-file-verification.js';

/** The signer certificate as the service's own revocation data knows it (not what the file claims). */
export type RevocationView =
  | { status: 'good' | 'expired'; checked_against: 'service_revocation_data' }
  | { status: 'revoked'; revoked_at: string; reason: string; checked_against: 'service_revocation_data' }
  | { status: 'not_issued_by_service' | 'no_signer' };

/**
 * Trust anchors are every root CA the service has issued and not revoked, expired or not: a file signed
 * (and timestamped) under an older root still validates.
 */
export async function trustAnchorsPem(knex: Knex): Promise<string[]> {
  const roots = await Certificate.query(knex).where({ role: 'root' }).whereNull('revoked_at');
  return roots.map((r) => derToPem(r.der));
}

export async function revocationOf(knex: Knex, serial: string | null | undefined): Promise<RevocationView> {
  if (!serial) return { status: 'no_signer' };
  const cert = await Certificate.query(knex).findOne({ serial: normalizeSerialHex(serial) });
  if (!cert) return { status: 'not_issued_by_service' };
  if (cert.revoked_at) {
    return { status: 'revoked', revoked_at: cert.revoked_at.toISOString(), reason: cert.revocation_reason ?? 'unspecified', checked_against: 'service_revocation_data' };
  }
  return { status: cert.status() === 'expired' ? 'expired' : 'good', checked_against: 'service_revocation_data' };
}

export type VerificationView = VerificationReport & { revocation: RevocationView; mime_type: SignableMimeType; sha256: string };

async function viewOf(knex: Knex, report: VerificationReport, mimeType: SignableMimeType, sha256: string): Promise<VerificationView> {
  return { ...report, revocation: await revocationOf(knex, report.signer?.serial), mime_type: mimeType, sha256 };
}

/** c2pa-rs's verdict with the service's root as the only anchor, plus the signer's revocation status. */
export async function verifyFile(knex: Knex, bytes: Uint8Array, mimeType: SignableMimeType, sha256: string): Promise<VerificationView> {
  return viewOf(knex, await readAsset(bytes, mimeType, { trustAnchorsPem: await trustAnchorsPem(knex) }), mimeType, sha256);
}

/** verifyFile for a file on disk larger than MAX_UPLOAD_BYTES: c2pa-rs reads it in a process of its own. */
export async function verifyLargeFile(knex: Knex, filePath: string, mimeType: SignableMimeType, sha256: string): Promise<VerificationView> {
  return viewOf(knex, await readLargeAssetFile(filePath, mimeType, await trustAnchorsPem(knex)), mimeType, sha256);
}
