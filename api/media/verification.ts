import { judgedIdentities } from './identity-judgement.js';
import type { Knex } from 'knex';
import type { MANIFEST_STORE_TYPE } from '../../shared/c2pa/reader-open.js';
import type { SignerInfo } from '../../shared/c2pa/signer-info.js';
import { inaccessibleReport, withSignerVouchedForTimestampsOnly, type VerificationReport } from '../../shared/c2pa/verification-report.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import type { Config } from '../../shared/config.js';
import { findCertificateBySerial } from '../../shared/db/repositories/certificates.js';
import { formatFor } from '../../shared/media/formats.js';
import { nameInCertificateOrder, readCertificate } from '../../shared/pki/certificate.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { decodeImageCode, type ImageCode } from '../../shared/softbinding/iscc-codec.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { TrustConfig, TrustSource, TrustStore } from '../../shared/trust/store.js';
import type { RemoteManifestSource } from './remote-manifest.js';
import { signerTrust, trustInUse, type SignerTrust } from './verification-trust.js';
import type { DetachedManifest } from './verify-tasks.js';
import type { VerifyPool } from './verify-pool.js';

/** What verification reads: a file of a type the service signs, or a manifest store alone (a .c2pa sidecar). */
export type VerifiedType = SignableMimeType | typeof MANIFEST_STORE_TYPE;

/** The signer certificate as the service's own revocation data knows it (not what the file claims). */
export type RevocationView =
  | { status: 'good' | 'expired'; checked_against: 'service_revocation_data' }
  | { status: 'revoked'; revoked_at: string; reason: string; checked_against: 'service_revocation_data' }
  | { status: 'not_issued_by_service' | 'no_signer' };

/**
 * The revocation status the service knows for the file's signer. A certificate is the service's only when both its
 * serial and its issuer match one the service issued: serials are unique per issuer only, so a foreign certificate
 * with the same serial is not_issued_by_service.
 */
export async function revocationOf(knex: Knex, signer: Partial<Pick<SignerInfo, 'serial' | 'issuer'>> | null | undefined): Promise<RevocationView> {
  if (!signer?.serial) return { status: 'no_signer' };
  const cert = await findCertificateBySerial(knex, normalizeSerialHex(signer.serial));
  if (!cert || nameInCertificateOrder(readCertificate(cert.der).issuerNameDer) !== signer.issuer) return { status: 'not_issued_by_service' };
  if (cert.revoked_at) {
    return { status: 'revoked', revoked_at: cert.revoked_at.toISOString(), reason: cert.revocation_reason ?? 'unspecified', checked_against: 'service_revocation_data' };
  }
  return { status: cert.status() === 'expired' ? 'expired' : 'good', checked_against: 'service_revocation_data' };
}

export type VerificationView = Omit<VerificationReport, 'signer'> & {
  signer: (NonNullable<VerificationReport['signer']> & SignerTrust) | null;
  revocation: RevocationView;
  mime_type: VerifiedType;
  sha256: string;
};

export interface VerifiedFile {
  view: VerificationView;
  /** The fingerprint of an image without a manifest (undefined when it has one, is no image, or cannot be decoded). */
  fingerprint: ImageCode | undefined;
}

/** What reading a staged file needs of the process: its database, pool, settings and remote-manifest fetcher. */
interface Readers {
  knex: Knex;
  verifyPool: VerifyPool;
  config: Pick<Config, 'maxUploadBytes' | 'maxImagePixels' | 'fingerprintMode'> & TrustConfig;
  remoteManifests: RemoteManifestSource;
}

/**
 * c2pa-rs's verdict on a staged file under the trust in use (trustInUse: the service's roots, the trust lists, the
 * operator's anchors and, with `orgId`, the signed-in caller's organisation's), naming who vouches for the signer and
 * the timestamp, plus the signer's revocation status, read in the verification pool (an image over MAX_IMAGE_PIXELS is refused there first). A file over
 * MAX_UPLOAD_BYTES (video and audio, which signed-in callers may verify up to their kind's limit) is never read
 * whole: c2pa-rs reads the ranges it needs from disk.
 */
export async function verifyStagedFile(
  { knex, verifyPool: pool, config, remoteManifests }: Readers,
  staged: Pick<StagedFile, 'tempPath' | 'size' | 'sha256'>,
  mimeType: VerifiedType,
  options: { sidecar?: Uint8Array | undefined; orgId?: string | undefined; signal?: AbortSignal | undefined } = {},
): Promise<VerifiedFile> {
  const { store, trust } = await trustInUse(knex, config, options.orgId);
  const readWhole = staged.size <= config.maxUploadBytes;
  const read = (manifest: DetachedManifest | undefined) =>
    pool.run(
      'verify',
      {
        filePath: staged.tempPath,
        mimeType,
        image: formatFor(mimeType)?.kind === 'image',
        readWhole,
        trust: trust.all,
        manifest,
        tsaAnchors: trust.tsaAnchors,
        maxPixels: config.maxImagePixels,
        fingerprintMode: config.fingerprintMode,
      },
      options.signal,
    );
  let manifest: DetachedManifest | undefined = options.sidecar && { bytes: options.sidecar, kind: 'sidecar', url: null };
  let { report, fingerprint, remote_url: remoteUrl } = await read(manifest);
  if (remoteUrl) {
    // The file's manifest is at a URL: fetched here, under the guard, and read with the file in the pool.
    const fetched = await remoteManifests.fetch(remoteUrl);
    if ('error' in fetched) report = inaccessibleReport(remoteUrl, fetched.error);
    else {
      manifest = { bytes: fetched.bytes, kind: 'remote', url: remoteUrl };
      ({ report, fingerprint } = await read(manifest));
    }
  }
  const judged = await judgeSigner(knex, store, report, () =>
    pool.run('trust_source', { filePath: staged.tempPath, mimeType, readWhole, candidates: trust.candidates, manifest: manifest?.bytes }, options.signal),
  );
  const view = { ...judged, mime_type: mimeType, sha256: staged.sha256 };
  return { view, fingerprint: fingerprint === null ? undefined : decodeImageCode(fingerprint) };
}

/**
 * A report with its signer judged: the signer's revocation status as the service knows it, and which trust source
 * vouches for it. A certificate the service issued (its serial in the service's records) vouched for by the service's
 * roots needs no second read; any other trusted signer is read again under each source's claim-signer list alone
 * (`vouchingSource`, in the pool), and one none of them vouches for was trusted through an anchor for timestamps only.
 */
export async function judgeSigner(
  knex: Knex,
  store: TrustStore,
  read: VerificationReport,
  vouchingSource: () => Promise<TrustSource | null>,
): Promise<Omit<VerificationView, 'mime_type' | 'sha256'>> {
  let report = read;
  const revocation = await revocationOf(knex, report.signer);
  let source: TrustSource | null = null;
  if (report.status.success.includes('signingCredential.trusted')) {
    source = revocation.status === 'good' || revocation.status === 'expired' || revocation.status === 'revoked' ? 'service_ca' : await vouchingSource();
    if (!source) report = withSignerVouchedForTimestampsOnly(report);
  }
  const signer = report.signer && { ...report.signer, ...signerTrust(store, source) };
  return { ...report, signer, revocation, identities: await judgedIdentities(knex, store, report.identities) };
}

/**
 * c2pa-rs's crJSON report of a staged file (or of its detached manifest: the sidecar sent with it, or its remote
 * manifest, fetched as verification fetches it) under the trust settings verification uses, unchanged. Undefined when
 * there is no manifest; `refused`: c2pa-rs refused the manifest with that status code; `inaccessible`: the remote
 * manifest could not be fetched.
 */
export async function crJsonOfStaged(
  { knex, verifyPool: pool, config, remoteManifests }: Readers,
  staged: Pick<StagedFile, 'tempPath' | 'size'>,
  mimeType: VerifiedType,
  options: { sidecar?: Uint8Array | undefined; orgId?: string | undefined; signal?: AbortSignal | undefined } = {},
): Promise<string | { refused: string } | { inaccessible: string } | undefined> {
  const trust = (await trustInUse(knex, config, options.orgId)).trust.all;
  const input = { filePath: staged.tempPath, mimeType, readWhole: staged.size <= config.maxUploadBytes, trust };
  const result = await pool.run('crjson', { ...input, manifest: options.sidecar }, options.signal);
  if (result === undefined || typeof result === 'string' || !('remote_url' in result)) return result;
  const fetched = await remoteManifests.fetch(result.remote_url);
  if ('error' in fetched) return { inaccessible: `the remote manifest at ${result.remote_url} was not fetched: ${fetched.error}` };
  const fromRemote = await pool.run('crjson', { ...input, manifest: fetched.bytes }, options.signal);
  return fromRemote !== undefined && typeof fromRemote !== 'string' && 'remote_url' in fromRemote ? undefined : fromRemote;
}
