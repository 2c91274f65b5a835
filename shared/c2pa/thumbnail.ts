import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';

/**
 * Claim thumbnails (c2pa.thumbnail.claim), made here because c2pa-rs's WASM build cannot: it lacks the
 * `add_thumbnails` feature, and `builder.thumbnail.enabled` is silently ignored (checked with c2pa-wasm 0.13.3).
 *
 * Pure JavaScript, as the service has no native image library: JPEG through jpeg-js, PNG decoded here (zlib from
 * Node, every colour type, bit depth and Adam7 interlacing). Pixels are box-averaged into the thumbnail as they
 * are decoded, transparency is flattened onto white, EXIF orientation (JPEG) is applied, and the result is a
 * baseline JPEG at most THUMBNAIL_LONG_EDGE pixels on its long side.
 *
 * Cost: decoding dominates. jpeg-js decodes about 7-8 MP a second on one core (a 12 MP photo: about 1.6 s of CPU
 * and 85 MB of memory), which is why thumbnails are opted into per template or request and never made by
 * default. Images beyond the limits below get no thumbnail (ThumbnailError) rather than exhausting the process.
 */

export const THUMBNAIL_LONG_EDGE = 512;
export const THUMBNAIL_QUALITY = 75;
/** Largest image (megapixels) a thumbnail is made of. */
export const THUMBNAIL_MAX_MEGAPIXELS = 40;
/** Largest decompressed PNG image data (bytes) a thumbnail is made of. */
const PNG_MAX_RAW_BYTES = 160 * 1024 * 1024;

export class ThumbnailError extends C2paError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`no claim thumbnail: ${message}`, options);
    this.name = 'ThumbnailError';
  }
}

/** Makes the claim thumbnail (a JPEG) of a JPEG or PNG. Throws ThumbnailError when it cannot. */
export function makeClaimThumbnail(bytes: Uint8Array, mimeType: SignableMimeType): Uint8Array {
  const image = mimeType === 'image/png' ? shrinkPng(bytes) : shrinkJpeg(bytes);
  return new Uint8Array(jpeg.encode({ data: image.data, width: image.width, height: image.height }, THUMBNAIL_QUALITY).data);
}

interface Rgba {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Averages pixels, in any order, into a grid at most `longEdge` on its long side. */
class Shrinker {
  readonly width: number;
  readonly height: number;
  readonly #colBin: Uint32Array;
  readonly #rowBin: Uint32Array;
  /** Per thumbnail pixel: sum of r*a, g*a, b*a, a, and the pixel count. */
  readonly #sums: Float64Array;

  constructor(srcWidth: number, srcHeight: number, longEdge = THUMBNAIL_LONG_EDGE) {
    const scale = Math.min(1, longEdge / Math.max(srcWidth, srcHeight));
    this.width = Math.max(1, Math.round(srcWidth * scale));
    this.height = Math.max(1, Math.round(srcHeight * scale));
    this.#colBin = Uint32Array.from({ length: srcWidth }, (_, x) => Math.min(this.width - 1, Math.floor((x * this.width) / srcWidth)));
    this.#rowBin = Uint32Array.from({ length: srcHeight }, (_, y) => Math.min(this.height - 1, Math.floor((y * this.height) / srcHeight)));
    this.#sums = new Float64Array(this.width * this.height * 5);
  }

  add(x: number, y: number, r: number, g: number, b: number, a: number): void {
    const i = (this.#rowBin[y]! * this.width + this.#colBin[x]!) * 5;
    const s = this.#sums;
    s[i] += r * a;
    s[i + 1] += g * a;
    s[i + 2] += b * a;
    s[i + 3] += a;
    s[i + 4] += 1;
  }

  /** Opaque RGBA: the average colour over white, weighted by alpha. */
  result(): Rgba {
    const data = new Uint8Array(this.width * this.height * 4);
    const s = this.#sums;
    for (let p = 0; p < this.width * this.height; p += 1) {
      const i = p * 5;
      const count = s[i + 4]! || 1;
      const alpha = s[i + 3]! / count / 255; // coverage 0..1
      for (let c = 0; c < 3; c += 1) {
        const colour = s[i + 3]! > 0 ? s[i + c]! / s[i + 3]! : 255;
        data[p * 4 + c] = Math.round(colour * alpha + 255 * (1 - alpha));
      }
      data[p * 4 + 3] = 255;
    }
    return { data, width: this.width, height: this.height };
  }
}

// --- JPEG ---

function shrinkJpeg(bytes: Uint8Array): Rgba {
  let decoded: { width: number; height: number; data: Uint8Array };
  try {
    decoded = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      tolerantDecoding: true,
      maxResolutionInMP: THUMBNAIL_MAX_MEGAPIXELS,
      maxMemoryUsageInMB: THUMBNAIL_MAX_MEGAPIXELS * 8,
    });
  } catch (err) {
    throw new ThumbnailError(`the JPEG could not be decoded (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  const { width, height, data } = decoded;
  const shrinker = new Shrinker(width, height);
  for (let y = 0, i = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1, i += 4) shrinker.add(x, y, data[i]!, data[i + 1]!, data[i + 2]!, 255);
  }
  return orient(shrinker.result(), exifOrientation(bytes));
}

/** The EXIF Orientation (1-8) of a JPEG's APP1 segment; 1 when absent or unreadable. */
export function exifOrientation(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 2; // after SOI
  while (pos + 4 <= bytes.length && bytes[pos] === 0xff) {
    const marker = bytes[pos + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // image data: no more metadata
    const length = view.getUint16(pos + 2);
    const start = pos + 4;
    const end = pos + 2 + length;
    if (end > bytes.length) break;
    if (marker === 0xe1 && length >= 8 && String.fromCharCode(...bytes.subarray(start, start + 6)) === 'Exif\0\0') {
      return tiffOrientation(view, start + 6, end) ?? 1;
    }
    pos = end;
  }
  return 1;
}

function tiffOrientation(view: DataView, tiff: number, end: number): number | undefined {
  if (tiff + 8 > end) return undefined;
  const order = view.getUint16(tiff);
  if (order !== 0x4949 && order !== 0x4d4d) return undefined;
  const little = order === 0x4949;
  const ifd = tiff + view.getUint32(tiff + 4, little);
  if (ifd + 2 > end) return undefined;
  const count = view.getUint16(ifd, little);
  for (let n = 0; n < count; n += 1) {
    const entry = ifd + 2 + n * 12;
    if (entry + 12 > end) return undefined;
    if (view.getUint16(entry, little) === 0x0112) {
      const value = view.getUint16(entry + 8, little);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

/** Applies an EXIF orientation, so the thumbnail looks as viewers show the image. */
export function orient(image: Rgba, orientation: number): Rgba {
  if (orientation <= 1 || orientation > 8) return image;
  const { width: w, height: h, data } = image;
  const swap = orientation >= 5;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  const out = new Uint8Array(ow * oh * 4);
  for (let oy = 0; oy < oh; oy += 1) {
    for (let ox = 0; ox < ow; ox += 1) {
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: [sx, sy] = [w - 1 - ox, oy]; break; // mirrored
        case 3: [sx, sy] = [w - 1 - ox, h - 1 - oy]; break; // 180
        case 4: [sx, sy] = [ox, h - 1 - oy]; break; // flipped
        case 5: [sx, sy] = [oy, ox]; break; // transposed
        case 6: [sx, sy] = [oy, h - 1 - ox]; break; // 90 clockwise
        case 7: [sx, sy] = [w - 1 - oy, h - 1 - ox]; break; // transversed
        default: [sx, sy] = [w - 1 - oy, ox]; break; // 8: 90 anticlockwise
      }
      out.set(data.subarray((sy * w + sx) * 4, (sy * w + sx) * 4 + 4), (oy * ow + ox) * 4);
    }
  }
  return { data: out, width: ow, height: oh };
}

// --- PNG ---

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const BIT_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** Adam7 passes: x0, y0, dx, dy. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

function shrinkPng(bytes: Uint8Array): Rgba {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0;
  let height = 0;
  let depth = 0;
  let colourType = -1;
  let interlaced = false;
  let palette: Uint8Array | undefined;
  let paletteAlpha: Uint8Array | undefined;
  let transparent: number[] | undefined; // tRNS colour key of grey or RGB images, in sample values
  const idat: Uint8Array[] = [];
  for (let pos = 8; pos + 8 <= bytes.length; ) {
    const length = view.getUint32(pos);
    const type = String.fromCharCode(...bytes.subarray(pos + 4, pos + 8));
    const data = bytes.subarray(pos + 8, pos + 8 + length);
    if (data.length !== length) throw new ThumbnailError('the PNG is truncated');
    if (type === 'IHDR') {
      width = view.getUint32(pos + 8);
      height = view.getUint32(pos + 12);
      depth = data[8]!;
      colourType = data[9]!;
      interlaced = data[12] === 1;
    } else if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') {
      if (colourType === 3) paletteAlpha = data;
      else if (colourType === 0 && length >= 2) transparent = [view.getUint16(pos + 8)];
      else if (colourType === 2 && length >= 6) transparent = [0, 2, 4].map((o) => view.getUint16(pos + 8 + o));
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + length;
  }
  const channels = CHANNELS[colourType];
  if (!channels || !BIT_DEPTHS[colourType]!.includes(depth) || width === 0 || height === 0) throw new ThumbnailError('the PNG header is not supported');
  if (colourType === 3 && !palette) throw new ThumbnailError('the PNG has no palette');
  if (width * height > THUMBNAIL_MAX_MEGAPIXELS * 1_000_000) throw new ThumbnailError(`the image is over ${THUMBNAIL_MAX_MEGAPIXELS} megapixels`);

  const bitsPerPixel = channels * depth;
  const filterBpp = Math.max(1, bitsPerPixel >> 3);
  const passes = (interlaced ? ADAM7 : [[0, 0, 1, 1] as const]).map(([x0, y0, dx, dy]) => {
    const w = width > x0 ? Math.ceil((width - x0) / dx) : 0;
    const h = height > y0 ? Math.ceil((height - y0) / dy) : 0;
    return { x0, y0, dx, dy, w, h, stride: Math.ceil((w * bitsPerPixel) / 8) };
  });
  const rawSize = passes.reduce((n, p) => n + (p.w && p.h ? p.h * (p.stride + 1) : 0), 0);
  if (rawSize > PNG_MAX_RAW_BYTES) throw new ThumbnailError('the PNG is too large to decode for a thumbnail');
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: rawSize });
  } catch (err) {
    throw new ThumbnailError('the PNG image data could not be decompressed', { cause: err });
  }
  if (raw.length < rawSize) throw new ThumbnailError('the PNG image data is truncated');

  const shrinker = new Shrinker(width, height);
  const maxSample = (1 << Math.min(depth, 8)) - 1;
  const sample = (row: Uint8Array, index: number): number => {
    if (depth === 8) return row[index]!;
    if (depth === 16) return (row[index * 2]! << 8) | row[index * 2 + 1]!;
    const bit = index * depth;
    return (row[bit >> 3]! >> (8 - depth - (bit & 7))) & maxSample;
  };
  const to8 = (v: number) => (depth === 16 ? v >> 8 : depth < 8 ? Math.round((v * 255) / maxSample) : v);

  let offset = 0;
  for (const pass of passes) {
    if (!pass.w || !pass.h) continue;
    let previous = new Uint8Array(pass.stride);
    for (let py = 0; py < pass.h; py += 1) {
      const filter = raw[offset]!;
      const row = new Uint8Array(raw.subarray(offset + 1, offset + 1 + pass.stride));
      offset += pass.stride + 1;
      unfilter(filter, row, previous, filterBpp);
      previous = row;
      const y = pass.y0 + py * pass.dy;
      for (let px = 0; px < pass.w; px += 1) {
        const x = pass.x0 + px * pass.dx;
        const base = px * channels;
        let r: number;
        let g: number;
        let b: number;
        let a = 255;
        if (colourType === 3) {
          const index = sample(row, base);
          [r, g, b] = palette && index * 3 + 2 < palette.length ? [palette[index * 3]!, palette[index * 3 + 1]!, palette[index * 3 + 2]!] : [0, 0, 0];
          if (paletteAlpha && index < paletteAlpha.length) a = paletteAlpha[index]!;
        } else if (colourType === 0 || colourType === 4) {
          const grey = sample(row, base);
          r = g = b = to8(grey);
          if (colourType === 4) a = to8(sample(row, base + 1));
          else if (transparent && grey === transparent[0]) a = 0;
        } else {
          const [sr, sg, sb] = [sample(row, base), sample(row, base + 1), sample(row, base + 2)];
          [r, g, b] = [to8(sr), to8(sg), to8(sb)];
          if (colourType === 6) a = to8(sample(row, base + 3));
          else if (transparent && sr === transparent[0] && sg === transparent[1] && sb === transparent[2]) a = 0;
        }
        shrinker.add(x, y, r, g, b, a);
      }
    }
  }
  return shrinker.result();
}

/** Reverses a PNG scanline filter in place (RFC 2083 section 6). */
function unfilter(filter: number, row: Uint8Array, previous: Uint8Array, bpp: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i += 1) row[i] = (row[i]! + row[i - bpp]!) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i += 1) row[i] = (row[i]! + previous[i]!) & 0xff;
      return;
    case 3:
      for (let i = 0; i < n; i += 1) row[i] = (row[i]! + (((i >= bpp ? row[i - bpp]! : 0) + previous[i]!) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < n; i += 1) {
        const a = i >= bpp ? row[i - bpp]! : 0;
        const b = previous[i]!;
        const c = i >= bpp ? previous[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new ThumbnailError(`the PNG uses an unknown filter type ${filter}`);
  }
}
