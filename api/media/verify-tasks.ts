/**
 * The work the API hands to its verification pool (verify-pool.ts), done in the pool's processes (verify-process.ts):
 * image headers and decoding, the fingerprint, and c2pa-rs reads. Each task names its input and its result; all
 * travel over IPC (structured clone), so results are plain data.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { crJsonOf, readAsset, readAssetFile, readDetachedManifest, readManifestStore } from '../../shared/c2pa/read-asset.js';
import type { ReadOptions } from '../../shared/c2pa/settings.js';
import { MANIFEST_STORE_TYPE, RemoteManifestError } from '../../shared/c2pa/reader-open.js';
import { inaccessibleReport, withSignerVouchedForTimestampsOnly, type VerificationReport } from '../../shared/c2pa/verification-report.js';
import { crJsonOfBmffFile, readBmffFile } from '../../shared/c2pa/bmff-read.js';
import { crJsonOfDataHashedFile, readDataHashedFile } from '../../shared/c2pa/data-hash-read.js';
import { readRendition } from '../../shared/c2pa/bmff-rendition-read.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { checkedTimestamp } from '../../shared/c2pa/signature-timestamp.js';
import { withIdentityCertificates } from '../../shared/c2pa/identity-signature.js';
import { activeSignatureIn } from '../../shared/c2pa/signature-cose.js';
import { stapledOcspOf } from '../../shared/c2pa/stapled-ocsp.js';
import { FileBlob } from '../../shared/c2pa/wasm.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { formatFor } from '../../shared/media/formats.js';
import { assertImageDecodes, assertImagePixelsWithin } from '../../shared/media/image-pixels.js';
import { type ImageCode } from '../../shared/softbinding/iscc-codec.js';
import { imageCodeFromFile } from '../../shared/softbinding/iscc-image.js';
import type { FingerprintMode } from '../../shared/softbinding/fingerprint-mode.js';
import type { TrustSource } from '../../shared/trust/store.js';
import type { TrustCandidate } from './verification-trust.js';

/** What is read: a file (its embedded manifest), a manifest store alone (MANIFEST_STORE_TYPE), or a file with its detached manifest. */
type ReadType = SignableMimeType | typeof MANIFEST_STORE_TYPE;

/** A manifest that is not in the file: a sidecar sent with it, or the remote manifest it names, fetched by the API. */
export interface DetachedManifest {
  bytes: Uint8Array;
  kind: 'sidecar' | 'remote';
  url: string | null;
}

export interface VerifyTasks {
  /**
   * c2pa-rs's verdict on a staged file (an image over maxPixels is refused first) and, for an image without a
   * manifest, its fingerprint (null when it has a manifest, is no image, or cannot be decoded). `readWhole`: read into
   * memory (files within MAX_UPLOAD_BYTES); otherwise c2pa-rs reads the ranges it needs from disk.
   */
  verify: {
    input: {
      filePath: string;
      mimeType: ReadType;
      image: boolean;
      readWhole: boolean;
      trust: ReadOptions;
      manifest?: DetachedManifest;
      /** The anchors a timestamp's TSA must chain to for the timestamp to be trusted (checkedTimestamp). */
      tsaAnchors: { pem: string; source: TrustSource }[];
      maxPixels: number;
      fingerprintMode: FingerprintMode;
    };
    /** remote_url: the file's manifest is remote and was not given (the report says manifest.inaccessible). */
    result: { report: VerificationReport; fingerprint: string | null; remote_url: string | null };
  };
  /**
   * A fragmented MP4 rendition's verdicts (shared/c2pa/bmff-rendition-read.ts): the rendition's and one per media
   * segment, in order, with the init segment's manifest store (null without one).
   */
  verify_rendition: {
    input: { initPath: string; mimeType: SignableMimeType; segmentPaths: string[]; trust: ReadOptions; tsaAnchors: { pem: string; source: TrustSource }[] };
    result: { report: VerificationReport; segments: VerificationReport[]; store: Uint8Array | null };
  };
  /** c2pa-rs's crJSON under these trust settings (undefined without a manifest; `refused`: the code c2pa-rs refused it with). */
  crjson: {
    input: { filePath: string; mimeType: ReadType; readWhole: boolean; trust: ReadOptions; manifest?: Uint8Array };
    result: string | { refused: string } | { remote_url: string } | undefined;
  };
  /**
   * Which trust source vouches for a file's signer: the file is read again under each candidate's claim-signer list
   * alone, in order, and the first under which c2pa-rs reports signingCredential.trusted names it (null: none does, so
   * only an anchor for timestamps made c2pa-rs trust it).
   */
  trust_source: {
    input: { filePath: string; mimeType: ReadType; readWhole: boolean; candidates: TrustCandidate[]; manifest?: Uint8Array };
    result: TrustSource | null;
  };
  /** The ISCC Image-Code of an image (refused when over maxPixels, corrupt when it cannot be decoded). */
  fingerprint: { input: { filePath: string; mimeType: string; maxPixels: number; fingerprintMode: FingerprintMode }; result: { iscc: string } };
  /** An upload's pixel checks: within maxPixels, and its pixel data all there. */
  check_image: { input: { filePath: string; mimeType: string; maxPixels: number }; result: null };
  /**
   * Detached manifest stores (the repository's), each read and judged under `trust`, in order; a trusted one's source
   * is the first of `candidates` under which it reads trusted (as trust_source does for files), and one that none of
   * them trusts is not trusted (withSignerVouchedForTimestampsOnly).
   */
  read_stores: {
    input: { stores: Uint8Array[]; trust: ReadOptions; candidates: TrustCandidate[] };
    result: { report: VerificationReport; trust_source: TrustSource | null }[];
  };
}

export type TaskKind = keyof VerifyTasks;
export type TaskInput<K extends TaskKind> = VerifyTasks[K]['input'];
export type TaskResult<K extends TaskKind> = VerifyTasks[K]['result'];

/** Parsed TSA anchors by PEM: the same few hundred are sent with every verify. Bounded, should the anchors keep changing. */
const parsedAnchors = new Map<string, X509Certificate>();
const MAX_PARSED_ANCHORS = 4096;

function parsedAnchor(pem: string): X509Certificate {
  let certificate = parsedAnchors.get(pem);
  if (!certificate) {
    if (parsedAnchors.size >= MAX_PARSED_ANCHORS) parsedAnchors.delete(parsedAnchors.keys().next().value!);
    certificate = new X509Certificate(pem);
    parsedAnchors.set(pem, certificate);
  }
  return certificate;
}

/** The one place the API computes a fingerprint: in the mode signing uses (FINGERPRINT_MODE), so codes compare alike. */
function fingerprintOf(filePath: string, mode: FingerprintMode): Promise<ImageCode> {
  return imageCodeFromFile(filePath, { mode });
}

/**
 * What the service reads from the active manifest's signatures itself, in the bytes that carry the manifest (or the
 * path of a file too large to read whole), in one pass: the revocation evidence the claim signature carries (c2pa-rs
 * judged it: report.status), and the e-mail address and issuer of each person's identity certificate.
 */
async function readSignatures(report: VerificationReport, file: Uint8Array | string): Promise<void> {
  const signature = await activeSignatureIn(file, report.active_manifest);
  report.ocsp = stapledOcspOf(signature, report.status);
  report.identities = withIdentityCertificates(report.identities, signature);
}

/**
 * A file read from disk (not whole) that the service reads streamed, whatever its size, where c2pa-wasm would hold the
 * whole file in its WASM memory: its manifest store is read out of the file and its hard binding checked by streaming,
 * the BMFF hash of an MP4, M4V, MOV or M4A (shared/c2pa/bmff-read.ts), the data hash of a WAV, MP3 or FLAC
 * (shared/c2pa/data-hash-read.ts).
 */
const readStreamed = (mimeType: ReadType, readWhole: boolean): mimeType is SignableMimeType => !readWhole && formatFor(mimeType)?.streamed !== undefined;

/** A streamed format's reading (readStreamed). */
const readStreamedFile = (filePath: string, mimeType: SignableMimeType, trust: ReadOptions) =>
  formatFor(mimeType)?.streamed === 'bmff' ? readBmffFile(filePath, mimeType, trust) : readDataHashedFile(filePath, mimeType, trust);

async function readStaged(filePath: string, mimeType: ReadType, readWhole: boolean, trust: ReadOptions, manifest?: Uint8Array): Promise<VerificationReport> {
  // Who signed a detached manifest does not depend on the asset: the store alone tells.
  if (manifest) return readManifestStore(manifest, trust);
  if (mimeType === MANIFEST_STORE_TYPE) return readManifestStore(new Uint8Array(await readFile(filePath)), trust);
  if (readStreamed(mimeType, readWhole)) return (await readStreamedFile(filePath, mimeType, trust)).report;
  return readWhole ? readAsset(new Uint8Array(await readFile(filePath)), mimeType, trust) : readAssetFile(filePath, mimeType, trust);
}

/** The staged file's report, or the URL of its remote manifest when that is where its manifest is. */
async function reportOfStaged(
  filePath: string,
  mimeType: ReadType,
  bytes: Uint8Array | undefined,
  trust: ReadOptions,
  manifest: DetachedManifest | undefined,
): Promise<{ report: VerificationReport; remote_url: string | null; store?: Uint8Array }> {
  if (mimeType === MANIFEST_STORE_TYPE) return { report: await readManifestStore(bytes ?? new Uint8Array(await readFile(filePath)), trust), remote_url: null };
  if (manifest) {
    const report = await readDetachedManifest(manifest.bytes, filePath, trust, { kind: manifest.kind, url: manifest.url, asset_checked: false });
    return { report, remote_url: null };
  }
  try {
    if (readStreamed(mimeType, !!bytes)) return { ...(await readStreamedFile(filePath, mimeType, trust)), remote_url: null };
    return { report: bytes ? await readAsset(bytes, mimeType, trust) : await readAssetFile(filePath, mimeType, trust), remote_url: null };
  } catch (err) {
    if (!(err instanceof RemoteManifestError)) throw err;
    return { report: inaccessibleReport(err.url, 'not fetched'), remote_url: err.url };
  }
}

const tasks: { [K in TaskKind]: (input: TaskInput<K>) => Promise<TaskResult<K>> } = {
  async verify({ filePath, mimeType, image, readWhole, trust, manifest, tsaAnchors, maxPixels, fingerprintMode }) {
    if (image) await assertImagePixelsWithin(filePath, maxPixels);
    const bytes = readWhole || mimeType === MANIFEST_STORE_TYPE ? new Uint8Array(await readFile(filePath)) : undefined;
    const { report, remote_url, store } = await reportOfStaged(filePath, mimeType, bytes, trust, manifest);
    if (report.timestamp) {
      const anchors = tsaAnchors.map(({ pem, source }) => ({ pem, source, certificate: parsedAnchor(pem) }));
      // The token is found in the bytes that carry the manifest: the store itself when it is detached or was read out.
      report.timestamp = await checkedTimestamp(report.timestamp, report.active_manifest, manifest?.bytes ?? store ?? bytes ?? filePath, anchors);
    }
    if (report.active_manifest) await readSignatures(report, manifest?.bytes ?? store ?? bytes ?? filePath);
    // Fingerprints are of images: one with a manifest is judged by it; one that cannot be decoded has none.
    const fingerprint = image && report.validation_state === 'none' ? ((await fingerprintOf(filePath, fingerprintMode).catch(() => undefined))?.iscc ?? null) : null;
    return { report, fingerprint, remote_url };
  },
  async verify_rendition({ initPath, mimeType, segmentPaths, trust, tsaAnchors }) {
    const { report, segments, store } = await readRendition(initPath, mimeType, segmentPaths, trust);
    if (store && report.active_manifest) await readSignatures(report, store);
    if (report.timestamp && store) {
      const anchors = tsaAnchors.map(({ pem, source }) => ({ pem, source, certificate: parsedAnchor(pem) }));
      const timestamp = await checkedTimestamp(report.timestamp, report.active_manifest, store, anchors);
      return { report: { ...report, timestamp }, segments: segments.map((s) => ({ ...s, timestamp })), store };
    }
    return { report, segments, store: store ?? null };
  },
  async crjson({ filePath, mimeType, readWhole, trust, manifest }) {
    if (manifest || mimeType === MANIFEST_STORE_TYPE) return crJsonOf(manifest ?? new Uint8Array(await readFile(filePath)), MANIFEST_STORE_TYPE, trust);
    const blob = readWhole || readStreamed(mimeType, readWhole) ? undefined : FileBlob.open(filePath, mimeType);
    try {
      if (readStreamed(mimeType, readWhole)) return formatFor(mimeType)?.streamed === 'bmff' ? await crJsonOfBmffFile(filePath, mimeType, trust) : await crJsonOfDataHashedFile(filePath, mimeType, trust);
      return await crJsonOf(blob ?? new Uint8Array(await readFile(filePath)), mimeType, trust);
    } catch (err) {
      if (err instanceof RemoteManifestError) return { remote_url: err.url };
      throw err;
    } finally {
      blob?.close();
    }
  },
  async trust_source({ filePath, mimeType, readWhole, candidates, manifest }) {
    return vouchingSource(candidates, (trust) => readStaged(filePath, mimeType, readWhole, trust, manifest));
  },
  async fingerprint({ filePath, mimeType, maxPixels, fingerprintMode }) {
    await assertImagePixelsWithin(filePath, maxPixels);
    try {
      return { iscc: (await fingerprintOf(filePath, fingerprintMode)).iscc };
    } catch (err) {
      throw new MediaRejectedError('corrupt', `the image could not be decoded: ${(err as Error).message.split('\n')[0]}`, mimeType);
    }
  },
  async check_image({ filePath, mimeType, maxPixels }) {
    await assertImagePixelsWithin(filePath, maxPixels);
    await assertImageDecodes(filePath, mimeType, maxPixels);
    return null;
  },
  async read_stores({ stores, trust, candidates }) {
    const read: TaskResult<'read_stores'> = [];
    for (const store of stores) {
      const report = await readManifestStore(store, trust);
      const source = isTrusted(report) ? await vouchingSource(candidates, (candidate) => readManifestStore(store, candidate)) : null;
      read.push({ report: isTrusted(report) && !source ? withSignerVouchedForTimestampsOnly(report) : report, trust_source: source });
    }
    return read;
  },
};

const isTrusted = (report: VerificationReport) => report.status.success.includes('signingCredential.trusted');

/**
 * The first candidate whose claim-signer list alone makes c2pa-rs trust the signer, read by `readUnder`; null when none
 * does (c2pa-rs trusted it through an anchor for timestamps only).
 */
async function vouchingSource(candidates: readonly TrustCandidate[], readUnder: (trust: ReadOptions) => Promise<VerificationReport>): Promise<TrustSource | null> {
  for (const { source, trust } of candidates) {
    if (isTrusted(await readUnder(trust))) return source;
  }
  return null;
}

export function performTask<K extends TaskKind>(kind: K, input: TaskInput<K>): Promise<TaskResult<K>> {
  return (tasks[kind] as (input: TaskInput<K>) => Promise<TaskResult<K>>)(input);
}
