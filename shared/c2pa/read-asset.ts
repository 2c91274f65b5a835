import { reportAgainstAsset, type CheckedBinding } from './detached-binding.js';
import { assertSignableMedia, type SignableMimeType } from './media-type.js';
import type { ReaderJson } from './reader-json.js';
import { isRefused, MANIFEST_STORE_TYPE, openReader, RemoteManifestError } from './reader-open.js';
import { structureOnlySettings, trustSettings, type ReadOptions } from './settings.js';
import { reportOf, type ManifestSource, type VerificationReport } from './verification-report.js';
import { FileBlob } from './wasm.js';

/**
 * Reads and validates a file's C2PA manifest store with c2pa-rs, judged against the given trust lists only.
 */

/** Whether the file carries a C2PA manifest store (structure only, no validation; about 1-2 ms). */
export async function hasManifest(bytes: Uint8Array, mimeType: SignableMimeType): Promise<boolean> {
  assertSignableMedia(bytes, mimeType);
  return sourceHasManifest(bytes, mimeType);
}

/** hasManifest for bytes or a Blob whose type is already checked (a BytesBlob or a FileBlob). */
export async function sourceHasManifest(source: Uint8Array | Blob, mimeType: SignableMimeType): Promise<boolean> {
  const reader = await openReader(source, mimeType, structureOnlySettings());
  if (!reader) return false;
  if (isRefused(reader)) return true;
  try {
    return reader.activeLabel() !== undefined;
  } finally {
    reader.free();
  }
}

/**
 * The title of the source's active manifest (structure only, no validation): a re-signed file's parent ingredient
 * keeps the parent's own title. Undefined without a manifest or a title.
 */
export async function activeManifestTitle(source: Uint8Array | Blob, mimeType: SignableMimeType): Promise<string | undefined> {
  // A parent whose manifest is refused or remote has no title to read here.
  const reader = await openReader(source, mimeType, structureOnlySettings()).catch((err: unknown) => {
    if (err instanceof RemoteManifestError) return undefined;
    throw err;
  });
  if (!reader || isRefused(reader)) return undefined;
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel();
    const title = label ? json.manifests?.[label]?.title : undefined;
    return typeof title === 'string' && title.length > 0 ? title : undefined;
  } finally {
    reader.free();
  }
}

/**
 * Reads and validates the file. A file without a manifest gives validation_state 'none'; an unreadable or
 * mis-declared file throws (C2paError, UnsupportedMediaTypeError, MediaTypeMismatchError).
 */
export async function readAsset(bytes: Uint8Array, mimeType: SignableMimeType, options: ReadOptions): Promise<VerificationReport> {
  assertSignableMedia(bytes, mimeType);
  return reportOf(await openReader(bytes, mimeType, trustSettings(options)));
}

/**
 * readAsset for a file on disk, of any size: c2pa-rs reads a file over 50 MB through a FileBlob, the ranges it asks
 * for when it asks (a 256 MiB MP4: about 0.5 GiB of WASM memory, which then stays with the process: run it in a
 * process of its own). The type must already be known from the content (identifyMedia).
 */
export async function readAssetFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<VerificationReport> {
  const blob = FileBlob.open(filePath, mimeType);
  try {
    return reportOf(await openReader(blob, mimeType, trustSettings(options)));
  } finally {
    blob.close();
  }
}

/**
 * Reads a detached manifest store (application/c2pa, as the manifest repository keeps it). Without the asset its
 * hard binding cannot be checked, so the report is about the manifest and its signature: the validation state says
 * so (c2pa-rs reports the data hash as unverifiable), the summary and signer are what the asset would show.
 */
export async function readManifestStore(store: Uint8Array, options: ReadOptions): Promise<VerificationReport> {
  return reportOf(await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options)), { kind: 'sidecar', url: null, asset_checked: false });
}

/**
 * c2pa-rs's crJSON report of a file, or of a detached manifest store (MANIFEST_STORE_TYPE), under these trust
 * settings, as c2pa-rs writes it. Undefined when the file has no manifest; a manifest c2pa-rs refuses (an
 * unsupported algorithm) has no crJSON either: its status code is returned instead.
 */
export async function crJsonOf(source: Uint8Array | Blob, mimeType: SignableMimeType | typeof MANIFEST_STORE_TYPE, options: ReadOptions): Promise<string | { refused: string } | undefined> {
  const opened = await openReader(source, mimeType, trustSettings(options));
  if (!opened) return undefined;
  if (isRefused(opened)) return { refused: opened.refused.code };
  try {
    return opened.crJson();
  } finally {
    opened.free();
  }
}

/**
 * Reads a manifest that is not in the file (a sidecar sent with it, or the remote manifest it names) against the
 * file: c2pa-rs judges the store (signature, trust, assertions, ingredients) and, since c2pa-wasm cannot read a store
 * with its asset, the hard binding is checked here against the file: c2pa.hash.data (data-hash.ts), c2pa.hash.bmff
 * (bmff-hash.ts, for MP4, MOV, M4A, HEIC, AVIF) or c2pa.hash.boxes (box-hash.ts, for JPEG and PNG). c2pa-rs's own code
 * for it, from hashing the store itself, is replaced by that check. A binding not judged here (a box hash of another
 * format or with exclusions, or a BMFF hash with Merkle trees whose file-level hash matches) is left as c2pa-rs judged
 * it against the store, so such a file stays Invalid here. `checked`: a binding whose hash was checked already.
 */
export async function readDetachedManifest(store: Uint8Array, assetPath: string, options: ReadOptions, source: ManifestSource, checked?: CheckedBinding): Promise<VerificationReport> {
  const opened = await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options));
  if (!opened || isRefused(opened)) return { ...reportOf(opened), manifest_source: source };
  return reportAgainstAsset(opened, assetPath, source, checked);
}

/** The active manifest's claim thumbnail (its bytes and format) from a manifest store, or undefined without one. */
export async function claimThumbnailOfStore(store: Uint8Array): Promise<{ bytes: Uint8Array; format: string } | undefined> {
  const reader = await openReader(store, MANIFEST_STORE_TYPE, structureOnlySettings());
  if (!reader || isRefused(reader)) return undefined;
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel();
    const thumbnail = label ? json.manifests?.[label]?.thumbnail : undefined;
    if (!thumbnail?.identifier) return undefined;
    return { bytes: reader.resourceToBytes(thumbnail.identifier), format: thumbnail.format ?? 'application/octet-stream' };
  } finally {
    reader.free();
  }
}
