import { makeClaimThumbnailOfPixels, THUMBNAIL_MAX_MEGAPIXELS } from '../../shared/c2pa/thumbnail.js';
import type { FingerprintMode } from '../../shared/softbinding/fingerprint-mode.js';
import { type ImageCode } from '../../shared/softbinding/iscc-codec.js';
import { decodeForFingerprint, imageCodeFromPixels, pixelsOfDecoded, type DecodedPixels } from '../../shared/softbinding/iscc-image.js';

/** What signing derives from an image's pixels. */
export interface ImageContent {
  /** The ISCC Image-Code (soft binding); absent when not asked for or the image cannot be decoded. */
  fingerprint?: ImageCode;
  /** The claim thumbnail, made of the fingerprint's pixels; absent when signing must make it itself (see below). */
  thumbnail?: Uint8Array;
}

/**
 * The fingerprint of an image and, when the manifest asks for a claim thumbnail, the thumbnail made of the same
 * decode (one decode for both). The fingerprint's pixels ignore the ICC profile, as the reference does: an image
 * with a profile, a CMYK one, or one over the thumbnail's pixel limit gets its thumbnail from signing as before
 * (colour-managed, with its errors reported there), so do those without a fingerprint.
 */
export async function imageContent(bytes: Buffer, wants: { fingerprint: FingerprintMode | undefined; thumbnail: boolean }): Promise<ImageContent> {
  if (!wants.fingerprint) return {};
  let decoded: DecodedPixels;
  try {
    decoded = await decodeForFingerprint(bytes, { mode: wants.fingerprint });
  } catch {
    return {};
  }
  const fingerprint = imageCodeFromPixels(pixelsOfDecoded(decoded));
  const thumbnailOfPixels = wants.thumbnail && !decoded.hasIcc && !decoded.cmyk && decoded.sourcePixels <= THUMBNAIL_MAX_MEGAPIXELS * 1_000_000;
  if (!thumbnailOfPixels) return { fingerprint };
  return { fingerprint, thumbnail: await makeClaimThumbnailOfPixels(decoded).catch(() => undefined) };
}
