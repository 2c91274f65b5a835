import { readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

const what = 'the GIF';

/** Skips a chain of data sub-blocks (length byte, data) up to its terminator; returns the offset after it. */
function* skipSubBlocks(pos: number, size: number): Walk<number> {
  for (;;) {
    if (pos >= size) throw corrupt('the GIF is truncated (a data block runs past the end)');
    const length = (yield* readExactly(pos, 1, what))[0]!;
    pos += 1 + length;
    if (length === 0) return pos;
  }
}

/**
 * GIF: header (GIF87a / GIF89a), logical screen descriptor and global colour table, then every block (image
 * descriptors with their colour tables and LZW data, extensions) up to the trailer, which must end the file.
 */
export function* checkGif(size: number): Walk<void> {
  const screen = yield* readExactly(0, 13, what);
  let pos = 13;
  if (screen[10]! & 0x80) pos += 3 * 2 ** ((screen[10]! & 0x07) + 1);
  let images = 0;
  for (;;) {
    if (pos >= size) throw corrupt('the GIF is truncated (no trailer)');
    const introducer = (yield* readExactly(pos, 1, what))[0]!;
    if (introducer === 0x3b) {
      pos += 1;
      break;
    }
    if (introducer === 0x2c) {
      const descriptor = yield* readExactly(pos, 10, what);
      if (descriptor.readUInt16LE(5) === 0 || descriptor.readUInt16LE(7) === 0) throw corrupt('the GIF has an image of zero width or height');
      pos += 10;
      if (descriptor[9]! & 0x80) pos += 3 * 2 ** ((descriptor[9]! & 0x07) + 1);
      const minCodeSize = (yield* readExactly(pos, 1, what))[0]!;
      if (minCodeSize < 1 || minCodeSize > 11) throw corrupt('the GIF has damaged image data');
      pos = yield* skipSubBlocks(pos + 1, size);
      images += 1;
    } else if (introducer === 0x21) {
      yield* readExactly(pos + 1, 1, what); // label
      pos = yield* skipSubBlocks(pos + 2, size);
    } else {
      throw corrupt(`the GIF block structure is damaged at byte ${pos}`);
    }
  }
  if (images === 0) throw corrupt('the GIF has no image');
  if (pos !== size) throw corrupt(`the GIF has ${size - pos} bytes after its trailer`);
}
