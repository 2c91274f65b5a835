import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors.js';
import { formatFor } from '../media/formats.js';

/**
 * Signing with the manifest store kept remote (c2pa-rs's no_embed with a remote URL): the file carries only the
 * store's URL, in its XMP `dcterms:provenance`, and the store is served by the manifest repository.
 *
 * Probed with c2pa-wasm 0.13.3 (c2pa-rs 0.91.3): every format it signs itself (JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF,
 * HEIC, HEIF, JPEG XL, SVG, AVI, PDF) gets the reference, and the store read against the file reads Trusted. Refused:
 * - the formats the service signs streamed (MP4, M4V, MOV, M4A, WAV, MP3, FLAC): its own writers place an embedded
 *   store and write no XMP reference;
 * - ZIP containers (EPUB, OOXML, ODF): c2pa-rs cannot write the reference (XmpNotSupported), and without it c2pa-wasm
 *   cannot read such a store apart from its file (UnsupportedType), so the collection-hash binding could not be checked.
 */

/** The file's format cannot be signed with a remote manifest (422), with the reason. */
export class RemoteManifestUnsupportedError extends ServiceError {
  constructor(reason: string) {
    super('unprocessable', 'remote_manifest_unsupported', `${reason}: sign it with manifest_placement "embedded"`);
    this.name = 'RemoteManifestUnsupportedError';
  }
}

/** Why a file of this type cannot be signed with a remote manifest, or undefined when it can. */
export function remoteManifestRefusal(mimeType: string): string | undefined {
  const format = formatFor(mimeType);
  if (!format) return `${mimeType} is not a format the service signs`;
  if (format.streamed) return `${format.label} files are signed streamed, with the manifest written into the file; they cannot carry a remote manifest`;
  if (format.container === 'zip') return `a ${format.label} cannot carry a remote manifest: c2pa-rs writes no manifest reference into a ZIP container, and its collection-hash binding could not be checked against a store kept apart`;
  return undefined;
}

/** Throws RemoteManifestUnsupportedError for a type remoteManifestRefusal refuses. */
export function assertRemoteManifestSupported(mimeType: string): void {
  const refusal = remoteManifestRefusal(mimeType);
  if (refusal !== undefined) throw new RemoteManifestUnsupportedError(refusal);
}

/** Where the manifest repository serves a manifest store (GET /v1/manifests/{id}). */
export function repositoryManifestUrl(baseUrl: string, manifestId: string): string {
  return `${baseUrl}/v1/manifests/${encodeURIComponent(manifestId)}`;
}

/** The label a remote manifest is signed with and the URL the file names: chosen before signing, so the file can carry it. */
export interface RemoteManifestTarget {
  label: string;
  url: string;
}

/**
 * A fresh manifest label (c2pa-rs takes a preset label of the form urn:c2pa:<uuid>) and its URL in the repository,
 * where the store is kept under that label once the job completes.
 */
export function newRemoteManifestTarget(baseUrl: string): RemoteManifestTarget {
  const label = `urn:c2pa:${randomUUID()}`;
  return { label, url: repositoryManifestUrl(baseUrl, label) };
}
