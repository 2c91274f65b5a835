import { readFile } from 'node:fs/promises';
import type { Sharp } from 'sharp';
import { loadSharp } from '../media/sharp.js';
import { mediaDurationSeconds } from '../media/duration.js';
import { formatFor } from '../media/formats.js';
import { videoFramePng } from '../media/video-frame.js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';

/**
 * Claim thumbnails (c2pa.thumbnail.claim), made here because c2pa-rs's WASM build cannot: it lacks the
 * `add_thumbnails` feature, and `builder.thumbnail.enabled` is silently ignored (checked with c2pa-wasm 0.13.3).
 *
 * Of video, ffmpeg takes a representative frame (shared/media/video-frame.ts), which is then made into the JPEG as
 * an image is; without ffmpeg (FFMPEG_PATH) video is signed without one. Audio has none.
 *
 * libvips (sharp) decodes the image, applies its EXIF orientation, flattens transparency onto white and shrinks it
 * to a baseline JPEG at most THUMBNAIL_LONG_EDGE pixels on its long side: about 25 ms for a 12 MP photo.
 */

export const THUMBNAIL_LONG_EDGE = 512;
export const THUMBNAIL_QUALITY = 75;
/** Largest image (megapixels) a thumbnail is made of: beyond, decoding could exhaust the worker. */
export const THUMBNAIL_MAX_MEGAPIXELS = 40;

export class ThumbnailError extends C2paError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`no claim thumbnail: ${message}`, options);
    this.name = 'ThumbnailError';
  }
}

/** The thumbnail of an upright image: over white, at most THUMBNAIL_LONG_EDGE on its long side, a baseline JPEG. */
async function thumbnailJpeg(image: Sharp): Promise<Uint8Array> {
  const out = await image
    .flatten({ background: '#ffffff' })
    .resize(THUMBNAIL_LONG_EDGE, THUMBNAIL_LONG_EDGE, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: THUMBNAIL_QUALITY })
    .toBuffer();
  return new Uint8Array(out);
}

/** Makes the claim thumbnail (a JPEG) of an image. Throws ThumbnailError when it cannot. */
export async function makeClaimThumbnail(bytes: Uint8Array, _mimeType: SignableMimeType): Promise<Uint8Array> {
  const sharp = await loadSharp();
  try {
    return await thumbnailJpeg(sharp(bytes, { limitInputPixels: THUMBNAIL_MAX_MEGAPIXELS * 1_000_000, failOn: 'error' }).rotate());
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(message)) throw new ThumbnailError(`the image is over ${THUMBNAIL_MAX_MEGAPIXELS} megapixels`, { cause: err });
    throw new ThumbnailError(`the image could not be decoded (${message.split('\n')[0]})`, { cause: err });
  }
}

/** Decoded 8-bit pixels (1 to 4 channels, gray or sRGB, alpha last), already in their upright orientation. */
export interface ThumbnailPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/**
 * makeClaimThumbnail of pixels decoded already (e.g. by the fingerprint): no second decode. Only for pixels with no
 * colour profile to apply, and of an image within THUMBNAIL_MAX_MEGAPIXELS (the caller checks both).
 */
export async function makeClaimThumbnailOfPixels(pixels: ThumbnailPixels): Promise<Uint8Array> {
  const { data, width, height, channels } = pixels;
  if (channels < 1 || channels > 4) throw new ThumbnailError(`${channels} channels per pixel`);
  const sharp = await loadSharp();
  try {
    return await thumbnailJpeg(sharp(data, { raw: { width, height, channels: channels as 1 | 2 | 3 | 4 } }));
  } catch (err) {
    throw new ThumbnailError(`the pixels could not be encoded (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`, { cause: err });
  }
}

/** Where the thumbnail is made from: the file in memory, or on disk (video needs a file: ffmpeg seeks in it). */
export type ThumbnailSource = { bytes: Uint8Array } | { path: string; bytes?: () => Promise<Uint8Array> };

/**
 * The claim thumbnail of any signable file: images by makeClaimThumbnail, video from a frame ffmpeg takes (only of a
 * file on disk, and only with `ffmpegPath`). Throws ThumbnailError when there can be none.
 */
export async function claimThumbnailOf(source: ThumbnailSource, mimeType: SignableMimeType, options: { ffmpegPath?: string }): Promise<Uint8Array> {
  const kind = formatFor(mimeType)?.kind;
  if (kind === 'image') {
    const bytes = 'path' in source ? await (source.bytes?.() ?? readFile(source.path)) : source.bytes;
    return makeClaimThumbnail(bytes, mimeType);
  }
  if (kind !== 'video') throw new ThumbnailError(`${mimeType} has no picture to make one of`);
  if (!options.ffmpegPath) throw new ThumbnailError('video thumbnails need ffmpeg (FFMPEG_PATH=off)');
  if (!('path' in source)) throw new ThumbnailError('video thumbnails are made from a file on disk (signFile), not from memory');
  let frame: Uint8Array;
  try {
    frame = await videoFramePng(source.path, { ffmpegPath: options.ffmpegPath, durationSeconds: await mediaDurationSeconds(source.path, mimeType) });
  } catch (err) {
    throw new ThumbnailError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  return makeClaimThumbnail(frame, 'image/png');
}
