import type { VaultKey } from '../vault/types.js';
import type { Timestamper } from '../tsa/client.js';
import type { IdentityAssertionDefinition } from './cawg-identity.js';
import { C2paError } from './errors.js';
import type { ManifestDefinition } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import type { RemoteManifestTarget } from './remote-manifest.js';

/** What signing needs besides the source: the same for a file in memory (signAsset) and one on disk (signFile). */
export interface SignOptions {
  mimeType: SignableMimeType;
  /** From buildManifestDefinition; built with sourceHasManifest matching the source. */
  manifest: ManifestDefinition;
  key: VaultKey;
  /** Leaf certificate first, then the sub-CA (no root). The leaf must certify `key`. */
  chainDer: Uint8Array[];
  timestamper?: Timestamper;
  /** The leaf's OCSP answer (DER), stapled in the signature (rVals); without it the signature carries none. */
  ocspResponse?: Uint8Array;
  /** CAWG identity assertions to add (cawg-identity.ts): people vouching for the content by name. */
  identityAssertions?: readonly IdentityAssertionDefinition[];
  /**
   * Anchors to judge an existing manifest by when the source becomes the parent ingredient. c2pa-rs records
   * that judgement in the ingredient; without anchors every parent is recorded as signingCredential.untrusted.
   */
  trustAnchorsPem?: string | readonly string[];
  /**
   * Called when the definition asks for a claim thumbnail that cannot be made (an image too large or one the
   * decoder refuses, a video without ffmpeg or without a frame it can decode, audio): the file is then signed
   * without one, as c2pa-rs does by default (thumbnail ignore_errors).
   */
  onThumbnailError?: (err: unknown) => void;
  /** ffmpeg, which takes the frame a video's claim thumbnail is made of (signFile only); without it video gets none. */
  ffmpegPath?: string;
  /** pdftoppm, which renders the first page a PDF's claim thumbnail is made of (signFile only); without it PDFs get none. */
  pdftoppmPath?: string;
  /**
   * Whether the signed file is read back and validated before it is returned (default true): by c2pa-rs itself
   * (its verify_after_sign), or for the formats signed streamed (MP4, M4V, MOV and M4A: bmff-sign.ts; WAV, MP3 and
   * FLAC: data-hash-sign.ts), by reading the manifest out of the signed file and checking its BMFF or data hash here. That second pass hashes the whole file again, and
   * costs about as much CPU as signing it. Without it, what signing checks itself still holds: the leaf certificate
   * belongs to the vault key (coseSigner), the signature verifies against it and the timestamp token answers the
   * imprint (buildCoseSign1).
   */
  verifyAfterSign?: boolean;
  /**
   * The claim thumbnail (JPEG), already made by the caller (e.g. of the pixels its fingerprint decoded); used when
   * the definition asks for one, instead of decoding the source again.
   */
  thumbnail?: Uint8Array;
  /**
   * Keep the manifest store out of the file (remote-manifest.ts): the file then carries the target's URL as its XMP
   * dcterms:provenance reference, and the store, labelled with the target's label, is returned for the repository.
   */
  remoteManifest?: RemoteManifestTarget;
}

export interface SignFileInput extends Omit<SignOptions, 'manifest'> {
  /** The file to sign; read, never changed. It must not change while it is being signed. */
  sourcePath: string;
  /** Where the signed file is written (replaced if it exists; removed again if signing fails). */
  outputPath: string;
  /**
   * The definition, or how to build it once signFile has looked for a manifest in the source (so the file is read
   * for that once): `(sourceHasManifest) => buildManifestDefinition(request, { sourceHasManifest, ... })`.
   */
  manifest: ManifestDefinition | ((sourceHasManifest: boolean) => ManifestDefinition);
}

/** The signed file on disk: its size and SHA-256, and the manifest store it carries. */
export interface SignedFile {
  size: number;
  sha256: string;
  manifestStore: Uint8Array;
}

/** The definition says created, but the source has a manifest that signing would silently discard. */
export class SourceManifestConflictError extends C2paError {
  constructor() {
    super('the source already carries a C2PA manifest: build the definition with sourceHasManifest: true (c2pa.opened)');
    this.name = 'SourceManifestConflictError';
  }
}
