/**
 * The work the API hands to its verification pool (verify-pool.ts), done in the pool's processes (verify-process.ts):
 * image headers and decoding, the fingerprint, and c2pa-rs reads. Each task names its input and its result; all
 * travel over IPC (structured clone), so results are plain data.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readAsset, readAssetFile, readManifestStore, type ReadOptions, type VerificationReport } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { checkedTimestamp } from '../../shared/c2pa/signature-timestamp.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { assertImageDecodes, assertImagePixelsWithin } from '../../shared/media/image-pixels.js';
import { imageCodeFromFile, type ImageCode } from '../../shared/softbinding/iscc-image.js';
import type { FingerprintMode } from '../../shared/softbinding/fingerprint-mode.js';
import type { TrustSource } from '../../shared/trust/store.js';

export interface VerifyTasks {
  /**
   * c2pa-rs's verdict on a staged file (an image over maxPixels is refused first) and, for an image without a
   * manifest, its fingerprint (null when it has a manifest, is no image, or cannot be decoded). `readWhole`: read into
   * memory (files within MAX_UPLOAD_BYTES); otherwise c2pa-rs reads the ranges it needs from disk.
   */
  verify: {
    input: {
      filePath: string;
      mimeType: SignableMimeType;
      image: boolean;
      readWhole: boolean;
      trust: ReadOptions;
      /** The anchors a timestamp's TSA must chain to for the timestamp to be trusted (checkedTimestamp). */
      tsaAnchors: { pem: string; source: TrustSource }[];
      maxPixels: number;
      fingerprintMode: FingerprintMode;
    };
    result: { report: VerificationReport; fingerprint: string | null };
  };
  /**
   * Which trust source vouches for a file's signer: the file is read again under each candidate's anchors alone, in
   * order, and the first under which c2pa-rs reports signingCredential.trusted names it (null: none does).
   */
  trust_source: {
    input: { filePath: string; mimeType: SignableMimeType; readWhole: boolean; candidates: { source: TrustSource; trust: ReadOptions }[] };
    result: TrustSource | null;
  };
  /** The ISCC Image-Code of an image (refused when over maxPixels, corrupt when it cannot be decoded). */
  fingerprint: { input: { filePath: string; mimeType: string; maxPixels: number; fingerprintMode: FingerprintMode }; result: { iscc: string } };
  /** An upload's pixel checks: within maxPixels, and its pixel data all there. */
  check_image: { input: { filePath: string; mimeType: string; maxPixels: number }; result: null };
  /**
   * Detached manifest stores (the repository's), each read and judged under `trust`, in order; a trusted one's source
   * is the first of `candidates` under which it reads trusted (as trust_source does for files).
   */
  read_stores: {
    input: { stores: Uint8Array[]; trust: ReadOptions; candidates: { source: TrustSource; trust: ReadOptions }[] };
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

async function readStaged(filePath: string, mimeType: SignableMimeType, readWhole: boolean, trust: ReadOptions): Promise<VerificationReport> {
  return readWhole ? readAsset(new Uint8Array(await readFile(filePath)), mimeType, trust) : readAssetFile(filePath, mimeType, trust);
}

const tasks: { [K in TaskKind]: (input: TaskInput<K>) => Promise<TaskResult<K>> } = {
  async verify({ filePath, mimeType, image, readWhole, trust, tsaAnchors, maxPixels, fingerprintMode }) {
    if (image) await assertImagePixelsWithin(filePath, maxPixels);
    const bytes = readWhole ? new Uint8Array(await readFile(filePath)) : undefined;
    const report = bytes ? await readAsset(bytes, mimeType, trust) : await readAssetFile(filePath, mimeType, trust);
    if (report.timestamp) {
      const anchors = tsaAnchors.map(({ pem, source }) => ({ pem, source, certificate: parsedAnchor(pem) }));
      report.timestamp = await checkedTimestamp(report.timestamp, report.active_manifest, bytes ?? filePath, anchors);
    }
    // Fingerprints are of images: one with a manifest is judged by it; one that cannot be decoded has none.
    const fingerprint = image && report.validation_state === 'none' ? ((await fingerprintOf(filePath, fingerprintMode).catch(() => undefined))?.iscc ?? null) : null;
    return { report, fingerprint };
  },
  async trust_source({ filePath, mimeType, readWhole, candidates }) {
    for (const { source, trust } of candidates) {
      const report = await readStaged(filePath, mimeType, readWhole, trust);
      if (report.status.success.includes('signingCredential.trusted')) return source;
    }
    return null;
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
      let source: TrustSource | null = null;
      if (report.status.success.includes('signingCredential.trusted')) {
        for (const candidate of candidates) {
          if ((await readManifestStore(store, candidate.trust)).status.success.includes('signingCredential.trusted')) {
            source = candidate.source;
            break;
          }
        }
      }
      read.push({ report, trust_source: source });
    }
    return read;
  },
};

export function performTask<K extends TaskKind>(kind: K, input: TaskInput<K>): Promise<TaskResult<K>> {
  return (tasks[kind] as (input: TaskInput<K>) => Promise<TaskResult<K>>)(input);
}
