import { crc32 } from 'node:zlib';
import { readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunk data is read in slices of this size to check CRCs without holding a large chunk whole. */
const CRC_SLICE = 1 << 20;

/** Walks every chunk, checking lengths and CRCs, IHDR first with sane dimensions, and IEND last. */
export function* checkPng(size: number): Walk<void> {
  const what = 'the PNG';
  let pos = PNG_SIGNATURE.length;
  let first = true;
  let sawData = false;
  for (;;) {
    const header = yield* readExactly(pos, 8, what);
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (!/^[A-Za-z]{4}$/.test(type) || length > 0x7fffffff || pos + 12 + length > size) {
      throw corrupt('the PNG chunk structure is damaged or truncated');
    }
    if (first && (type !== 'IHDR' || length !== 13)) throw corrupt('the PNG does not start with an IHDR chunk');
    let crc = crc32(header.subarray(4, 8));
    let first8: Buffer | undefined;
    for (let off = 0; off < length; off += CRC_SLICE) {
      const slice = yield* readExactly(pos + 8 + off, Math.min(CRC_SLICE, length - off), what);
      if (off === 0) first8 = Buffer.from(slice.subarray(0, 8));
      crc = crc32(slice, crc);
    }
    const stored = (yield* readExactly(pos + 8 + length, 4, what)).readUInt32BE(0);
    if (stored !== crc) throw corrupt(`the PNG ${type} chunk fails its CRC check`);
    if (first && (first8!.readUInt32BE(0) === 0 || first8!.readUInt32BE(4) === 0)) throw corrupt('the PNG has zero width or height');
    if (type === 'IDAT') sawData = true;
    pos += 12 + length;
    first = false;
    if (type === 'IEND') break;
    if (pos >= size) throw corrupt('the PNG is truncated (no IEND chunk)');
  }
  if (!sawData) throw corrupt('the PNG has no image data');
}

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the marker segments up to the first scan, requires a frame header, and an EOI at the end. */
export function* checkJpeg(size: number): Walk<void> {
  const what = 'the JPEG';
  let pos = 2;
  let sawFrame = false;
  for (;;) {
    const marker = yield* readExactly(pos, 2, what);
    if (marker[0] !== 0xff) throw corrupt('the JPEG marker structure is damaged');
    const code = marker[1]!;
    if (code === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (code === 0xd8 || code === 0xd9 || (code >= 0xd0 && code <= 0xd7) || code === 0x01) {
      throw corrupt('the JPEG has a marker out of place');
    }
    const length = (yield* readExactly(pos + 2, 2, what)).readUInt16BE(0);
    if (length < 2 || pos + 2 + length > size) throw corrupt('the JPEG is truncated');
    if (SOF_MARKERS.has(code)) {
      const frame = yield* readExactly(pos + 5, 5, what);
      if (frame.readUInt16BE(1) === 0 || frame.readUInt16BE(3) === 0) throw corrupt('the JPEG has zero width or height');
      sawFrame = true;
    }
    pos += 2 + length;
    if (code === 0xda) break; // start of scan: entropy-coded data follows
  }
  if (!sawFrame) throw corrupt('the JPEG has no frame header');
  // Entropy-coded data ends with EOI; allow a little trailing padding as many encoders write it.
  const tailLength = Math.min(size - pos, 4096);
  const tail = yield* readAt(size - tailLength, tailLength);
  if (tail.length !== tailLength || tail.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) throw corrupt('the JPEG is truncated (no end-of-image marker)');
}
