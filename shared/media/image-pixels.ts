import sharp from 'sharp';
import { MediaRejectedError } from './errors.js';

/** An image file (its path) or its bytes. */
export type ImageInput = string | Uint8Array;

const sharpInput = (image: ImageInput) => (typeof image === 'string' ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength));

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * Width and height as the image's header declares them, without decoding its pixel data (libvips reads headers only;
 * an SVG's declared size, as librsvg would render it). Multi-page images (GIF, TIFF, HEIF): the first page, the only
 * one anything here decodes. Undefined when no decoder here reads the format (JPEG XL in sharp's prebuilt libvips)
 * or the header is unreadable: then nothing in the service can decode the pixels either.
 */
export async function imageDimensions(image: ImageInput): Promise<ImageDimensions | undefined> {
  try {
    const meta = await sharp(sharpInput(image), { limitInputPixels: false }).metadata();
    const height = meta.pageHeight ?? meta.height;
    return meta.width && height ? { width: meta.width, height } : undefined;
  } catch {
    return undefined;
  }
}

const megapixels = (pixels: number) => `${Number((pixels / 1e6).toFixed(1))} MP`;

/**
 * Refuses an image declaring more than `maxPixels` pixels (MAX_IMAGE_PIXELS) before anything decodes it: a small file
 * can declare a huge raster (a 117 KB PNG of 121 MP, a 170-byte SVG of 9990 x 9990) whose decoding takes gigabytes
 * and seconds. Throws MediaRejectedError `too_many_pixels`. Upload, verify and sign call it.
 */
export async function assertImagePixelsWithin(image: ImageInput, maxPixels: number): Promise<void> {
  const size = await imageDimensions(image);
  if (!size || size.width * size.height <= maxPixels) return;
  const pixels = size.width * size.height;
  throw new MediaRejectedError('too_many_pixels', `the image declares ${size.width} x ${size.height} pixels (${megapixels(pixels)}); at most ${maxPixels} pixels (${megapixels(maxPixels)}) are accepted`);
}

/**
 * Formats whose pixel data the upload decodes to find missing or truncated data: those sharp's libvips decodes here in
 * every variant. Not DNG (raw data in lossless JPEG, which libvips cannot decode, is valid), HEIC/HEIF (HEVC: no
 * decoder in sharp's prebuilt build), JPEG XL (no decoder) or SVG (text: its structure walk is the check).
 */
const DECODE_CHECKED = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/tiff', 'image/avif']);

/**
 * Decodes the image (first page) to find pixel data that is missing or cut short: a PNG whose IDAT ends early, a JPEG
 * whose scan stops before its last row. libvips' `failOn: 'truncated'` level: damage a decoder recovers from (a
 * stray byte before a marker, common in camera files) is not refused. Shrink-on-load keeps it cheap (a 24 MP JPEG
 * is decoded at 1/8 scale, every scan byte still read) and memory bounded (read sequentially into a small output).
 * Call assertImagePixelsWithin first. Throws MediaRejectedError `corrupt`.
 */
export async function assertImageDecodes(image: ImageInput, mimeType: string, maxPixels: number): Promise<void> {
  if (!DECODE_CHECKED.has(mimeType)) return;
  try {
    await sharp(sharpInput(image), { failOn: 'truncated', limitInputPixels: maxPixels, sequentialRead: true })
      .resize(64, 64, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new MediaRejectedError('corrupt', `the image's pixel data is damaged or truncated (${reason})`, mimeType);
  }
}
