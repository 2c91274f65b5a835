import type { Knex } from 'knex';
import { inaccessibleReport, type MANIFEST_STORE_TYPE, type ReadOptions, type SignerInfo, type VerificationReport } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import type { Config } from '../../shared/config.js';
import { findCertificateBySerial, unrevokedRoots } from '../../shared/db/repositories/certificates.js';
import { organisationTrustAnchorPems } from '../../shared/db/repositories/organisation-trust-anchors.js';
import { formatFor } from '../../shared/media/formats.js';
import { nameInCertificateOrder, readCertificate } from '../../shared/pki/certificate.js';
import { derToPem } from '../../shared/pki/pem.js';
import { normalizeSerialHex } from '../../shared/pki/serial.js';
import { decodeImageCode, type ImageCode } from '../../shared/softbinding/iscc-image.js';
import type { StagedFile } from '../../shared/storage/index.js';
import { listVersion, processTrustStore, type Anchor, type TrustSource, type TrustStore } from '../../shared/trust/store.js';
import type { RemoteManifestSource } from './remote-manifest.js';
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
 * The service's own anchors: every root CA the service has issued and not revoked, expired or not (a file signed and
 * timestamped under an older root still validates).
 */
export async function trustAnchorsPem(knex: Knex): Promise<string[]> {
  const roots = await unrevokedRoots(knex);
  return roots.map((r) => derToPem(r.der));
}

const pemsOf = (anchors: readonly Anchor[], source?: TrustSource) => anchors.filter((a) => !source || a.source === source).map((a) => a.pem);

/** A trust source's anchors alone: the read that tells whether it is the one vouching for a signer. */
export interface TrustCandidate {
  source: TrustSource;
  trust: ReadOptions;
}

export interface VerificationTrust {
  /** Everything in use, for the verdict. */
  all: ReadOptions & { trustAnchorsPem: readonly string[] };
  /** Each source's claim-signer anchors alone, in the order they are asked (see verificationTrust). */
  candidates: TrustCandidate[];
  /** The anchors a timestamp's TSA must chain to (checkedTimestamp). */
  tsaAnchors: { pem: string; source: TrustSource }[];
}

/** One entry per store object (a reload makes a new one): the trust of its last service roots. */
const memo = new WeakMap<TrustStore, { rootsKey: string; trust: VerificationTrust }>();

function baseTrust(serviceRootsPem: readonly string[], store: TrustStore): VerificationTrust {
  const rootsKey = serviceRootsPem.join('');
  const hit = memo.get(store);
  if (hit?.rootsKey === rootsKey) return hit.trust;
  const allowedListPem = store.allowed.length ? pemsOf(store.allowed).join('\n') : undefined;
  const all = {
    trustAnchorsPem: [...new Set([...serviceRootsPem, ...pemsOf(store.claimAnchors), ...pemsOf(store.tsaAnchors)])],
    allowedListPem,
    trustConfig: store.ekuConfig,
  };
  const candidates: TrustCandidate[] = [];
  for (const source of ['operator_anchor', 'c2pa_trust_list', 'interim_trust_list'] as const) {
    const anchors = pemsOf(store.claimAnchors, source);
    const allowed = source === 'interim_trust_list' ? allowedListPem : undefined;
    // c2pa-rs needs at least one anchor; the interim list's allowed certificates stand on their own.
    if (anchors.length || allowed) {
      candidates.push({ source, trust: { trustAnchorsPem: anchors.length ? anchors : [...serviceRootsPem], allowedListPem: allowed, trustConfig: source === 'interim_trust_list' ? store.ekuConfig : undefined } });
    }
  }
  const tsaAnchors = [...serviceRootsPem.map((pem) => ({ pem, source: 'service_ca' as const })), ...store.tsaAnchors.map(({ pem, source }) => ({ pem, source }))];
  const trust = { all, candidates, tsaAnchors };
  memo.set(store, { rootsKey, trust });
  return trust;
}

/**
 * What c2pa-rs judges a verified file by: the service's roots, the trust lists in use (TRUST_LISTS: claim-signer and
 * TSA anchors, the interim list's allowed end-entity certificates and EKU config), the operator's anchors
 * (TRUST_ANCHORS_FILE) and, for a signed-in caller, its organisation's own anchors (/org/trust-anchors, for signers
 * and timestamps alike, as the operator's are). c2pa-rs 0.91 does not keep claim-signer and TSA anchors apart (an
 * anchor of any kind makes a claim signer trusted), so `candidates` also gives each source's claim-signer anchors
 * alone, to name who vouches: the organisation's last, so a public list that also vouches is the one named.
 * Memoized per trust store and service roots; an organisation's anchors are added on top per call.
 */
export function verificationTrust(serviceRootsPem: readonly string[], store: TrustStore, organisationAnchorsPem: readonly string[] = []): VerificationTrust {
  const base = baseTrust(serviceRootsPem, store);
  if (organisationAnchorsPem.length === 0) return base;
  const organisation = [...organisationAnchorsPem];
  return {
    all: { ...base.all, trustAnchorsPem: [...new Set([...base.all.trustAnchorsPem, ...organisation])] },
    candidates: [...base.candidates, { source: 'organisation_anchor', trust: { trustAnchorsPem: organisation } }],
    tsaAnchors: [...base.tsaAnchors, ...organisation.map((pem) => ({ pem, source: 'organisation_anchor' as const }))],
  };
}

/**
 * The trust a verification is judged by (see verificationTrust): `orgId` only for a signed-in caller, whose
 * organisation's anchors then apply. A trust store that cannot be loaded is a 503 trust_lists_unavailable.
 */
export async function trustInUse(
  knex: Knex,
  config: Pick<Config, 'trustLists' | 'trustListsDir' | 'trustAnchorsFile' | 'trustReloadSeconds'>,
  orgId?: string,
): Promise<{ store: TrustStore; serviceRoots: string[]; trust: VerificationTrust }> {
  const store = processTrustStore(config);
  const [serviceRoots, organisation] = await Promise.all([trustAnchorsPem(knex), orgId ? organisationTrustAnchorPems(orgId, knex) : []]);
  return { store, serviceRoots, trust: verificationTrust(serviceRoots, store, organisation) };
}

/** Who vouches for the signer, and the list's pinned version when it is a list. */
export interface SignerTrust {
  trust_source: TrustSource | null;
  trust_list_version: string | null;
}

const LIST_OF = { c2pa_trust_list: 'official', interim_trust_list: 'interim' } as const;

export function signerTrust(store: TrustStore, source: TrustSource | null): SignerTrust {
  return { trust_source: source, trust_list_version: source === 'c2pa_trust_list' || source === 'interim_trust_list' ? listVersion(store, LIST_OF[source]) : null };
}

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
  config: Pick<Config, 'maxUploadBytes' | 'maxImagePixels' | 'fingerprintMode' | 'trustLists' | 'trustListsDir' | 'trustAnchorsFile' | 'trustReloadSeconds'>;
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
  options: { sidecar?: Uint8Array | undefined; orgId?: string | undefined } = {},
): Promise<VerifiedFile> {
  const { store, trust } = await trustInUse(knex, config, options.orgId);
  const readWhole = staged.size <= config.maxUploadBytes;
  const read = (manifest: DetachedManifest | undefined) =>
    pool.run('verify', {
      filePath: staged.tempPath,
      mimeType,
      image: formatFor(mimeType)?.kind === 'image',
      readWhole,
      trust: trust.all,
      manifest,
      tsaAnchors: trust.tsaAnchors,
      maxPixels: config.maxImagePixels,
      fingerprintMode: config.fingerprintMode,
    });
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
  const revocation = await revocationOf(knex, report.signer);
  let source: TrustSource | null = null;
  if (report.status.success.includes('signingCredential.trusted')) {
    // A certificate the service issued (its serial in the service's records) vouched for by the service's roots
    // needs no second read; any other signer is read again under each source alone.
    source = revocation.status === 'good' || revocation.status === 'expired' || revocation.status === 'revoked'
      ? 'service_ca'
      : await pool.run('trust_source', { filePath: staged.tempPath, mimeType, readWhole, candidates: trust.candidates, manifest: manifest?.bytes });
  }
  const signer = report.signer && { ...report.signer, ...signerTrust(store, source) };
  const view = { ...report, signer, revocation, mime_type: mimeType, sha256: staged.sha256 };
  return { view, fingerprint: fingerprint === null ? undefined : decodeImageCode(fingerprint) };
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
  options: { sidecar?: Uint8Array | undefined; orgId?: string | undefined } = {},
): Promise<string | { refused: string } | { inaccessible: string } | undefined> {
  const trust = (await trustInUse(knex, config, options.orgId)).trust.all;
  const input = { filePath: staged.tempPath, mimeType, readWhole: staged.size <= config.maxUploadBytes, trust };
  const result = await pool.run('crjson', { ...input, manifest: options.sidecar });
  if (result === undefined || typeof result === 'string' || !('remote_url' in result)) return result;
  const fetched = await remoteManifests.fetch(result.remote_url);
  if ('error' in fetched) return { inaccessible: `the remote manifest at ${result.remote_url} was not fetched: ${fetched.error}` };
  const fromRemote = await pool.run('crjson', { ...input, manifest: fetched.bytes });
  return fromRemote !== undefined && typeof fromRemote !== 'string' && 'remote_url' in fromRemote ? undefined : fromRemote;
}
