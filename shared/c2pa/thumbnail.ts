import { open, readFile } from 'node:fs/promises';
import type { Sharp } from 'sharp';
import { runOnBytes, runOnFile } from '../media/byte-walk.js';
import { loadSharp } from '../media/sharp.js';
import { mediaDurationSeconds } from '../media/duration.js';
import { formatFor } from '../media/formats.js';
import { pdfFirstPagePng } from '../media/pdf-page.js';
import { videoFrame, type VideoFrame } from '../media/video-frame.js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';

/**
 * Claim thumbnails (c2pa.thumbnail.claim), made here because c2pa-rs's WASM build cannot: it lacks the
 * `add_thumbnails` feature, and `builder.thumbnail.enabled` is silently ignored (checked with c2pa-wasm 0.13.3).
 *
 * Of video, ffmpeg takes a representative frame at the thumbnail's size (shared/media/video-frame.ts), whose pixels
 * are then encoded as the JPEG; without ffmpeg (FFMPEG_PATH) video is signed without one. Of a PDF, pdftoppm renders the first page
 * (shared/media/pdf-page.ts; PDFTOPPM_PATH); of an EPUB, its cover image is read out of the archive. Audio and the
 * other documents have none.
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

/** Whether claimThumbnailOf takes a video's frame with ffmpeg for this type: a process of its own, which takes a while. */
export function thumbnailRunsFfmpeg(mimeType: SignableMimeType, options: { ffmpegPath?: string }): boolean {
  return formatFor(mimeType)?.kind === 'video' && Boolean(options.ffmpegPath);
}

/**
 * The claim thumbnail of any signable file: images by makeClaimThumbnail, video from a frame ffmpeg takes (only of a
 * file on disk, and only with `ffmpegPath`), documents by documentThumbnail. Throws ThumbnailError when there can be none.
 */
export async function claimThumbnailOf(source: ThumbnailSource, mimeType: SignableMimeType, options: { ffmpegPath?: string; pdftoppmPath?: string }): Promise<Uint8Array> {
  const kind = formatFor(mimeType)?.kind;
  if (kind === 'image') {
    const bytes = 'path' in source ? await (source.bytes?.() ?? readFile(source.path)) : source.bytes;
    return makeClaimThumbnail(bytes, mimeType);
  }
  if (kind === 'document') return documentThumbnail(source, mimeType, options);
  if (kind !== 'video') throw new ThumbnailError(`${mimeType} has no picture to make one of`);
  if (!options.ffmpegPath) throw new ThumbnailError('video thumbnails need ffmpeg (FFMPEG_PATH=off)');
  if (!('path' in source)) throw new ThumbnailError('video thumbnails are made from a file on disk (signFile), not from memory');
  let frame: VideoFrame;
  try {
    frame = await videoFrame(source.path, { ffmpegPath: options.ffmpegPath, durationSeconds: await mediaDurationSeconds(source.path, mimeType), longEdge: THUMBNAIL_LONG_EDGE });
  } catch (err) {
    throw new ThumbnailError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  return makeClaimThumbnailOfPixels(frame);
}

/**
 * A document's claim thumbnail, from what its format's descriptor says it has (`picture`): a PDF's first page rendered
 * by pdftoppm (only of a file on disk, and only with `pdftoppmPath`), an EPUB's cover image read out of the archive.
 * Either is then made into the JPEG as an image is. Other documents have none.
 */
async function documentThumbnail(source: ThumbnailSource, mimeType: SignableMimeType, options: { pdftoppmPath?: string }): Promise<Uint8Array> {
  const format = formatFor(mimeType);
  const picture = format?.picture;
  if (!picture) throw new ThumbnailError(`a ${format?.label ?? mimeType} has no picture to make one of`);
  if (picture === 'first-page') {
    if (!options.pdftoppmPath) throw new ThumbnailError('PDF thumbnails need pdftoppm (PDFTOPPM_PATH=off)');
    if (!('path' in source)) throw new ThumbnailError('PDF thumbnails are made from a file on disk (signFile), not from memory');
    let page: Uint8Array;
    try {
      page = await pdfFirstPagePng(source.path, { pdftoppmPath: options.pdftoppmPath });
    } catch (err) {
      throw new ThumbnailError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    return makeClaimThumbnail(page, 'image/png');
  }
  let cover: Buffer | undefined;
  if ('path' in source) {
    const fh = await open(source.path, 'r');
    try {
      const { size } = await fh.stat();
      cover = await runOnFile(picture.cover(size), fh, size);
    } finally {
      await fh.close();
    }
  } else {
    cover = runOnBytes(picture.cover(source.bytes.byteLength), source.bytes);
  }
  if (!cover) throw new ThumbnailError(`the ${format.label} names no JPEG, PNG, GIF or WebP cover image`);
  return makeClaimThumbnail(cover, 'image/png');
}
