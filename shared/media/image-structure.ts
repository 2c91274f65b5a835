import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

export type ImageMimeType = 'image/jpeg' | 'image/png';

/** Why a file is refused: `unsupported` is another format (415), `corrupt` a damaged JPEG/PNG (400). */
export class ImageRejectedError extends Error {
  constructor(readonly reason: 'empty' | 'unsupported' | 'corrupt', message: string) {
    super(message);
    this.name = 'ImageRejectedError';
  }
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunk data is read in slices of this size to check CRCs without holding a large chunk whole. */
const READ_SLICE = 1 << 20;

async function readExactly(fh: FileHandle, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead !== length) throw new ImageRejectedError('corrupt', 'the image is truncated');
  return buf;
}

/** Walks every chunk, checking lengths and CRCs, IHDR first with sane dimensions, and IEND last. */
async function checkPng(fh: FileHandle, size: number): Promise<void> {
  let pos = PNG_SIGNATURE.length;
  let first = true;
  let sawData = false;
  for (;;) {
    const header = await readExactly(fh, 8, pos);
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (!/^[A-Za-z]{4}$/.test(type) || length > 0x7fffffff || pos + 12 + length > size) {
      throw new ImageRejectedError('corrupt', 'the PNG chunk structure is damaged or truncated');
    }
    if (first && (type !== 'IHDR' || length !== 13)) throw new ImageRejectedError('corrupt', 'the PNG does not start with an IHDR chunk');
    let crc = crc32(header.subarray(4, 8));
    let first8: Buffer | undefined;
    for (let off = 0; off < length; off += READ_SLICE) {
      const slice = await readExactly(fh, Math.min(READ_SLICE, length - off), pos + 8 + off);
      if (off === 0) first8 = slice.subarray(0, 8);
      crc = crc32(slice, crc);
    }
    const stored = (await readExactly(fh, 4, pos + 8 + length)).readUInt32BE(0);
    if (stored !== crc) throw new ImageRejectedError('corrupt', `the PNG ${type} chunk fails its CRC check`);
    if (first && (first8!.readUInt32BE(0) === 0 || first8!.readUInt32BE(4) === 0)) {
      throw new ImageRejectedError('corrupt', 'the PNG has zero width or height');
    }
    if (type === 'IDAT') sawData = true;
    pos += 12 + length;
    first = false;
    if (type === 'IEND') break;
    if (pos >= size) throw new ImageRejectedError('corrupt', 'the PNG is truncated (no IEND chunk)');
  }
  if (!sawData) throw new ImageRejectedError('corrupt', 'the PNG has no image data');
}

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the marker segments up to the first scan, requires a frame header, and an EOI at the end. */
async function checkJpeg(fh: FileHandle, size: number): Promise<void> {
  let pos = 2;
  let sawFrame = false;
  for (;;) {
    const marker = await readExactly(fh, 2, pos);
    if (marker[0] !== 0xff) throw new ImageRejectedError('corrupt', 'the JPEG marker structure is damaged');
    const code = marker[1]!;
    if (code === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (code === 0xd8 || code === 0xd9 || (code >= 0xd0 && code <= 0xd7) || code === 0x01) {
      throw new ImageRejectedError('corrupt', 'the JPEG has a marker out of place');
    }
    const length = (await readExactly(fh, 2, pos + 2)).readUInt16BE(0);
    if (length < 2 || pos + 2 + length > size) throw new ImageRejectedError('corrupt', 'the JPEG is truncated');
    if (SOF_MARKERS.has(code)) {
      const frame = await readExactly(fh, 5, pos + 5);
      if (frame.readUInt16BE(1) === 0 || frame.readUInt16BE(3) === 0) throw new ImageRejectedError('corrupt', 'the JPEG has zero width or height');
      sawFrame = true;
    }
    pos += 2 + length;
    if (code === 0xda) break; // start of scan: entropy-coded data follows
  }
  if (!sawFrame) throw new ImageRejectedError('corrupt', 'the JPEG has no frame header');
  // Entropy-coded data ends with EOI; allow a little trailing padding as many encoders write it.
  const tailLength = Math.min(size - pos, 4096);
  const tail = await readExactly(fh, tailLength, size - tailLength);
  if (tail.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) throw new ImageRejectedError('corrupt', 'the JPEG is truncated (no end-of-image marker)');
}

/**
 * Identifies a stored file as JPEG or PNG by its content and (with `checkStructure`, the default) checks
 * its structure; the name and the declared type of the upload play no part. Reads the file in slices.
 * Verification skips the structure check: a damaged file is exactly what c2pa-rs should judge.
 */
export async function identifyImage(filePath: string, options: { checkStructure?: boolean } = {}): Promise<ImageMimeType> {
  const checkStructure = options.checkStructure ?? true;
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    if (size === 0) throw new ImageRejectedError('empty', 'the file is empty');
    const head = Buffer.alloc(Math.min(8, size));
    await fh.read(head, 0, head.length, 0);
    if (head.length === 8 && head.equals(PNG_SIGNATURE)) {
      if (checkStructure) await checkPng(fh, size);
      return 'image/png';
    }
    if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
      if (checkStructure) await checkJpeg(fh, size);
      return 'image/jpeg';
    }
    throw new ImageRejectedError('unsupported', 'only JPEG and PNG images are accepted');
  } finally {
    await fh.close();
  }
}
