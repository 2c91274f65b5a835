/**
 * ISCC Image-Code (ISO 24138 Content-Code, SubType IMAGE, algorithm v0): the perceptual image hash that the C2PA
 * soft-binding algorithm list registers as `io.iscc.v0`. A copy of a signed image that was re-encoded, resized or
 * stripped of its metadata gets a code within a small Hamming distance of the original's, so the copy can be matched
 * back to the original's manifest.
 *
 * Two halves, as in the reference:
 *
 *  - `imageCodeFromPixels`: iscc-core `gen_image_code_v0`: the body from 1024 gray values by `soft_hash_image_v0`
 *    (iscc-soft-hash.ts: a DCT and a median per block, bit-exact with the reference's test vectors), with its header
 *    in base32 (iscc-codec.ts, which also has the code's distance and integer forms).
 *
 *  - `imagePixelsFromFile` / `imageCodeFromFile`: the reference SDK's normalization (iscc/iscc-sdk,
 *    iscc_sdk/image.py `image_normalize`), with sharp only decoding the file:
 *      1. EXIF orientation applied (PIL ImageOps.exif_transpose; sharp autoOrient);
 *      2. composited over white (PIL Image.alpha_composite with the SDK's (255,255,255) background: its integer
 *         arithmetic is reproduced here, so opaque pixels are unchanged);
 *      3. border trim: see `trimBorder` below - the SDK's trim does nothing with the Pillow versions it runs on,
 *         so it is off by default;
 *      4. grayscale with Pillow's convert("L"): ITU-R 601-2 luma on the gamma-encoded values in 16-bit fixed point
 *         ((R*19595 + G*38470 + B*7471 + 0x8000) >> 16), not libvips' linear-light grayscale;
 *      5. resize to 32x32 with Pillow's BICUBIC (pillow-bicubic.ts), reproduced rather than libvips' bicubic,
 *         whose kernel is not widened when reducing and so would give different (aliased) pixels.
 *    Given the same decoded pixels the 1024 values equal Pillow's: checked against the SDK's steps run in Pillow 9.4
 *    on 18 photographs (JPEG) and on RGBA/LA/palette PNGs, WebP, GIF, gray and CMYK JPEGs, EXIF orientations, 16-bit
 *    RGB PNG. ICC profiles are ignored, as Pillow does (`ignoreIcc`); CMYK uses Pillow's naive CMYK->RGB formula.
 *    What can still differ from the reference SDK: the JPEG decoder (sharp's mozjpeg build vs the libjpeg-turbo
 *    Pillow links: same output in every file checked, not guaranteed), and 16-bit grayscale images, which Pillow
 *    clips to 8 bits (nearly white) while they are scaled here.
 *    All of this is the `exact` mode (the default here). In `fast` mode (FingerprintMode, the service's default) a
 *    large JPEG is decoded at 1/2, 1/4 or 1/8 scale instead (decodeForFingerprint), and steps 4-5 run on that smaller
 *    image: not the reference's pixels, a few bits apart at most.
 */
import { loadSharp } from '../media/sharp.js';
import type { FingerprintMode } from './fingerprint-mode.js';
import { checkBits, encodeImageCode, type ImageCode } from './iscc-codec.js';
import { softHashImageV0 } from './iscc-soft-hash.js';
import { resampleBicubicL } from './pillow-bicubic.js';

export { FINGERPRINT_MODES, type FingerprintMode } from './fingerprint-mode.js';

/** The C2PA soft-binding algorithm name of this code. */
export const ISCC_IMAGE_SOFT_BINDING_ALG = 'io.iscc.v0';

export interface ImageNormalizeOptions {
  /** Apply the EXIF orientation before hashing (SDK default: yes). */
  exifTranspose?: boolean;
  /**
   * Crop a uniform border (the colour of the top-left pixel, exact match) before hashing. Off by default because
   * that is what the reference SDK actually computes: it trims after converting to RGBA, and Pillow's getbbox of an
   * RGBA image looks only at the alpha channel (Pillow 8.x and later; `alpha_only=True` is the default of the
   * parameter added since), so the bounding box of the difference is empty and the SDK keeps the whole image
   * (checked with Pillow 9.4). Turning it on gives the documented intent (what Pillow <= 7 computed), at the price
   * of codes that differ from the SDK's for images with a flat border; an exact-colour trim is also fragile, since
   * JPEG noise in the border of a re-encoded copy stops it from being trimmed.
   */
  trimBorder?: boolean;
  /** Refuse images with more pixels than this (the SDK's ISCC_SDK_IMAGE_MAX_PIXELS default: 128 MP). */
  maxPixels?: number;
  /** `exact` (default: the reference's pixels) or `fast` (JPEGs decoded at reduced scale), see FingerprintMode. */
  mode?: FingerprintMode;
}

export interface ImageCodeOptions extends ImageNormalizeOptions {
  /** Bit length of the code: a multiple of 32 from 32 to 256 (default 64). */
  bits?: number;
}

/** ISCC Image-Code from 1024 normalized gray values (32x32, row-major, 0..255). */
export function imageCodeFromPixels(pixels: ArrayLike<number>, bits = 64): ImageCode {
  const hash = softHashImageV0(pixels, bits);
  return { iscc: encodeImageCode(hash, bits), hash, bits };
}

// --- normalization (iscc_sdk/image.py image_normalize, with Pillow's arithmetic) ------------------------------------

const SDK_MAX_PIXELS = 128_000_000;

/** Pillow's alpha_composite of one channel over an opaque white background (AlphaComposite.c, 7 extra bits). */
function overWhite(c: number, a: number): number {
  if (a === 255) return c;
  if (a === 0) return 255;
  const coef1 = a * 128; // src.a*255*255*128 / (255*255): exact for an opaque background
  const tmp = c * coef1 + 255 * (255 * 128 - coef1) + (0x80 << 7);
  return (((tmp >>> 8) + tmp) >>> 8) >>> 7;
}

/** Pillow's convert("L") of an RGB pixel. */
function luma(r: number, g: number, b: number): number {
  return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >>> 16;
}

/** Pillow's cmyk2rgb (no colour management: R = (255-K) - C*(255-K)/255, rounded) followed by convert("L"). */
function cmykToGray(data: Uint8Array, channels: number, n: number): Uint8Array {
  const muldiv255 = (a: number, b: number) => {
    const t = a * b + 128;
    return ((t >> 8) + t) >> 8;
  };
  const gray = new Uint8Array(n);
  for (let i = 0, p = 0; i < n; i++, p += channels) {
    const nk = 255 - data[p + 3]!;
    const r = nk - muldiv255(data[p]!, nk);
    const g = nk - muldiv255(data[p + 1]!, nk);
    const b = nk - muldiv255(data[p + 2]!, nk);
    gray[i] = luma(r < 0 ? 0 : r, g < 0 ? 0 : g, b < 0 ? 0 : b);
  }
  return gray;
}

interface Decoded {
  gray: Uint8Array;
  width: number;
  height: number;
}

/**
 * The fast path's reduced decode keeps at least this many pixels on the image's long edge: the 32x32 resize then
 * still averages over many pixels per output, and a claim thumbnail (512 px) can be made of the same pixels.
 */
export const REDUCED_DECODE_MIN_EDGE = 512;

/**
 * The size to ask sharp for so that libjpeg decodes at 1/f scale (f = 8, 4 or 2, the largest that keeps
 * REDUCED_DECODE_MIN_EDGE), or undefined when no reduction applies. sharp decodes at 1/f only when the requested
 * reduction is at least f + 1 (it halves f when the whole part of the reduction equals f, against libjpeg's
 * rounding), and then resizes the ceil(w/f) x ceil(h/f) decode to the size asked for: floor(w/(f+1)) is the smallest
 * such step.
 */
export function reducedJpegSize(width: number, height: number): { width: number; height: number; factor: number } | undefined {
  for (const factor of [8, 4, 2]) {
    const w = Math.floor(width / (factor + 1));
    const h = Math.floor(height / (factor + 1));
    // At least 32 pixels on the short side: the output's own size, and floor() then moves the reduction by at most
    // 1/32, so sharp picks this factor and not the next.
    if (Math.max(w, h) >= REDUCED_DECODE_MIN_EDGE && Math.min(w, h) >= 32) return { width: w, height: h, factor };
  }
  return undefined;
}

/** Decoded 8-bit pixels, EXIF orientation applied and ICC profile ignored, as the fingerprint reads them. */
export interface DecodedPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
  /** Raw CMYK ink values (converted to gray with Pillow's formula). */
  cmyk: boolean;
  /** Decoded at reduced scale (the fast path): not the reference's pixels. */
  reduced: boolean;
  /** The source carries an ICC profile (ignored here; a thumbnail must not be made of these pixels then). */
  hasIcc: boolean;
  /** Pixels of the source image (width x height before any reduction). */
  sourcePixels: number;
}

/** Decodes an image for fingerprinting (path or bytes); `fast` mode reduces JPEGs in the DCT domain. */
export async function decodeForFingerprint(input: Buffer | string, opts: ImageNormalizeOptions = {}): Promise<DecodedPixels> {
  const limitInputPixels = opts.maxPixels ?? SDK_MAX_PIXELS;
  const sharp = await loadSharp();
  const make = () => sharp(input, { limitInputPixels, ignoreIcc: true, pages: 1, autoOrient: opts.exifTranspose !== false });
  const meta = await make().metadata();
  let pipeline = make();
  const cmyk = meta.space === 'cmyk';
  const eightBit = !meta.depth || meta.depth === 'uchar' || meta.depth === 'char';
  // CMYK: the raw ink values (as Pillow reads them), converted below with Pillow's naive formula.
  if (cmyk) pipeline = pipeline.pipelineColourspace('cmyk').toColourspace('cmyk');
  else if (!eightBit) {
    // 16-bit and float images: let libvips scale them to 8 bits per channel.
    pipeline = pipeline.toColourspace((meta.channels ?? 3) >= 3 ? 'srgb' : 'b-w');
  }
  // Border trimming needs the image's exact edge pixels: only the exact path.
  const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const reduced = opts.mode === 'fast' && meta.format === 'jpeg' && !cmyk && eightBit && !opts.trimBorder ? reducedJpegSize(oriented.width, oriented.height) : undefined;
  if (reduced) pipeline = pipeline.resize(reduced.width, reduced.height, { fit: 'fill', kernel: 'cubic' });
  const { data, info } = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    height: info.height,
    channels: info.channels,
    cmyk,
    reduced: reduced !== undefined,
    hasIcc: meta.icc !== undefined,
    sourcePixels: oriented.width * oriented.height,
  };
}

function grayOf(decoded: DecodedPixels, opts: ImageNormalizeOptions): Decoded {
  const { data, width, height, channels, cmyk } = decoded;
  const n = width * height;
  if (cmyk) return { gray: cmykToGray(data, channels, n), width, height }; // (trimBorder is not applied to CMYK)
  const gray = toGray(data, channels, n);
  if (!opts.trimBorder) return { gray, width, height };
  return trimUniformBorder(gray, data, channels, width, height);
}

/** One pixel composited over white, as 0xRRGGBB (gray inputs: R = G = B). */
function compositedRgb(data: Uint8Array, p: number, channels: number): number {
  const rgb = channels >= 3;
  const a = channels === 2 || channels === 4 ? data[p + channels - 1]! : 255;
  const r = overWhite(data[p]!, a);
  const g = rgb ? overWhite(data[p + 1]!, a) : r;
  const b = rgb ? overWhite(data[p + 2]!, a) : r;
  return (r << 16) | (g << 8) | b;
}

/** Over white, then Pillow's luma; gray inputs stay as they are (Pillow's L -> RGBA -> L round trip is exact). */
function toGray(data: Uint8Array, channels: number, n: number): Uint8Array {
  const gray = new Uint8Array(n);
  if (channels === 1) {
    gray.set(data.subarray(0, n));
  } else if (channels === 3) {
    for (let i = 0, p = 0; i < n; i++, p += 3) gray[i] = luma(data[p]!, data[p + 1]!, data[p + 2]!);
  } else {
    for (let i = 0, p = 0; i < n; i++, p += channels) {
      const c = compositedRgb(data, p, channels);
      gray[i] = channels === 2 ? c & 0xff : luma(c >>> 16, (c >>> 8) & 0xff, c & 0xff);
    }
  }
  return gray;
}

/**
 * Crop to the bounding box of the pixels whose colour (over white) differs from the top-left pixel's; unchanged if
 * no pixel or the whole image does (iscc-sdk image_trim_border as Pillow <= 7 computed it).
 */
function trimUniformBorder(gray: Uint8Array, data: Uint8Array, channels: number, width: number, height: number): Decoded {
  const ref = compositedRgb(data, 0, channels);
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0, p = y * width * channels; x < width; x++, p += channels) {
      if (compositedRgb(data, p, channels) !== ref) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  if (x1 < 0 || (x0 === 0 && y0 === 0 && x1 === width - 1 && y1 === height - 1)) return { gray, width, height };
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) out.set(gray.subarray((y + y0) * width + x0, (y + y0) * width + x0 + w), y * w);
  return { gray: out, width: w, height: h };
}

/** The 1024 gray values (32x32, row-major) the reference SDK hashes for an image file (path or bytes). */
export async function imagePixelsFromFile(input: Buffer | string, opts: ImageNormalizeOptions = {}): Promise<Uint8Array> {
  return pixelsOfDecoded(await decodeForFingerprint(input, opts), opts);
}

/** The 1024 gray values of pixels decodeForFingerprint returned. */
export function pixelsOfDecoded(decoded: DecodedPixels, opts: ImageNormalizeOptions = {}): Uint8Array {
  const { gray, width, height } = grayOf(decoded, opts);
  return resampleBicubicL(gray, width, height, 32, 32);
}

/** ISCC Image-Code of an image file (path or bytes): SDK normalization, then `imageCodeFromPixels`. */
export async function imageCodeFromFile(input: Buffer | string, opts: ImageCodeOptions = {}): Promise<ImageCode> {
  const bits = opts.bits ?? 64;
  checkBits(bits);
  return imageCodeFromPixels(await imagePixelsFromFile(input, opts), bits);
}
