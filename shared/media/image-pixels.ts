import { loadSharp } from './sharp.js';
import { MediaRejectedError } from './errors.js';
import { formatFor } from './formats.js';

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
  const sharp = await loadSharp();
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

/** Decoder warnings that mean the pixel data ran out: libjpeg's "premature end of data segment" (a scan cut short, even with an end-of-image marker appended), libpng's read errors. */
const TRUNCATION = /premature end|truncat|unexpected end|read error|not enough (image )?data/i;

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** Decodes the first page at a small scale (shrink-on-load: a 24 MP JPEG at 1/8, every scan byte still read). */
async function decodeSmall(image: ImageInput, failOn: 'truncated' | 'warning', maxPixels: number): Promise<void> {
  const sharp = await loadSharp();
  await sharp(sharpInput(image), { failOn, limitInputPixels: maxPixels, sequentialRead: true }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
}

/**
 * Decodes the image to find pixel data that is missing or cut short (formats whose descriptor says pixelDataChecked:
 * those sharp's libvips decodes here in every variant): a PNG whose IDAT ends early, a JPEG whose scan
 * stops before its last row. Damage a decoder recovers from without losing pixels (a stray byte before a marker,
 * common in camera files) is not refused: a warning fails the image only when it says the data ran out. Cheap
 * (shrink-on-load) and memory bounded (read sequentially into a small output). Call assertImagePixelsWithin first.
 * Throws MediaRejectedError `corrupt`.
 */
export async function assertImageDecodes(image: ImageInput, mimeType: string, maxPixels: number): Promise<void> {
  if (!formatFor(mimeType)?.pixelDataChecked) return;
  const refuse = (err: unknown) => new MediaRejectedError('corrupt', `the image's pixel data is damaged or truncated (${firstLine(err)})`, mimeType);
  try {
    await decodeSmall(image, 'warning', maxPixels);
  } catch (warning) {
    if (TRUNCATION.test(firstLine(warning))) throw refuse(warning);
    // Another warning: refused only if the image cannot be decoded past it.
    await decodeSmall(image, 'truncated', maxPixels).catch((err: unknown) => {
      throw refuse(err);
    });
  }
}
