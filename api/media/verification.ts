import type { Knex } from 'knex';
import type { VerificationReport } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import type { Config } from '../../shared/config.js';
import { findCertificateBySerial, unrevokedRoots } from '../../shared/db/repositories/certificates.js';
import { formatFor } from '../../shared/media/formats.js';
import { derToPem } from '../../shared/pki/pem.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { decodeImageCode, type ImageCode } from '../../shared/softbinding/iscc-image.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { VerifyPool } from './verify-pool.js';

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
  const roots = await unrevokedRoots(knex);
  return roots.map((r) => derToPem(r.der));
}

export async function revocationOf(knex: Knex, serial: string | null | undefined): Promise<RevocationView> {
  if (!serial) return { status: 'no_signer' };
  const cert = await findCertificateBySerial(knex, normalizeSerialHex(serial));
  if (!cert) return { status: 'not_issued_by_service' };
  if (cert.revoked_at) {
    return { status: 'revoked', revoked_at: cert.revoked_at.toISOString(), reason: cert.revocation_reason ?? 'unspecified', checked_against: 'service_revocation_data' };
  }
  return { status: cert.status() === 'expired' ? 'expired' : 'good', checked_against: 'service_revocation_data' };
}

export type VerificationView = VerificationReport & { revocation: RevocationView; mime_type: SignableMimeType; sha256: string };

export interface VerifiedFile {
  view: VerificationView;
  /** The fingerprint of an image without a manifest (undefined when it has one, is no image, or cannot be decoded). */
  fingerprint: ImageCode | undefined;
}

/**
 * c2pa-rs's verdict on a staged file with the service's roots as the only anchors, plus the signer's revocation
 * status, read in the verification pool (an image over MAX_IMAGE_PIXELS is refused there first). A file over
 * MAX_UPLOAD_BYTES (video and audio, which signed-in callers may verify up to their kind's limit) is never read
 * whole: c2pa-rs reads the ranges it needs from disk.
 */
export async function verifyStagedFile(
  knex: Knex,
  pool: VerifyPool,
  config: Pick<Config, 'maxUploadBytes' | 'maxImagePixels' | 'fingerprintMode'>,
  staged: Pick<StagedFile, 'tempPath' | 'size' | 'sha256'>,
  mimeType: SignableMimeType,
): Promise<VerifiedFile> {
  const { report, fingerprint } = await pool.run('verify', {
    filePath: staged.tempPath,
    mimeType,
    image: formatFor(mimeType)?.kind === 'image',
    readWhole: staged.size <= config.maxUploadBytes,
    trustAnchorsPem: await trustAnchorsPem(knex),
    maxPixels: config.maxImagePixels,
    fingerprintMode: config.fingerprintMode,
  });
  const view = { ...report, revocation: await revocationOf(knex, report.signer?.serial), mime_type: mimeType, sha256: staged.sha256 };
  return { view, fingerprint: fingerprint === null ? undefined : decodeImageCode(fingerprint) };
}
