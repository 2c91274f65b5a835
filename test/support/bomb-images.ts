import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { pngChunk } from './noise-png.js';

/**
 * A grayscale PNG declaring width x height whose pixel data is all zero, compressed: 11000 x 11000 (121 MP) is a
 * 117 KB file, a decompression bomb. `idatBytes`: keep only that much of the compressed data (chunks and CRCs
 * still well formed), a PNG whose pixel data is missing.
 */
export function pngBomb(width: number, height: number, idatBytes?: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const data = deflateSync(Buffer.alloc((width + 1) * height), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idatBytes === undefined ? data : data.subarray(0, idatBytes)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A tiny SVG (about 170 bytes) declaring width x height pixels: rendering it at that size is the cost. */
export function svgDeclaring(width: number, height: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 10 10"><rect width="10" height="10" fill="#c33"/><circle cx="5" cy="5" r="3" fill="#fff"/></svg>`,
  );
}

/** A photo-sized JPEG (smooth noise, upscaled): 6000 x 4000 is a 24 MP camera's frame. `seed` varies the picture. */
export async function largePhotoJpeg(width = 6000, height = 4000, seed = 1): Promise<Buffer> {
  const small = await sharp({ create: { width: width / 50, height: height / 50, channels: 3, background: { r: 40 * seed, g: 120, b: 200 }, noise: { type: 'gaussian', mean: 120 + seed, sigma: 60 } } })
    .png()
    .toBuffer();
  return sharp(small).resize(width, height, { kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer();
}
