import { readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';
import { defineFormat } from '../format-descriptor.js';
import { checkRiff, riffForm, type Chunk } from '../walks/riff.js';

/** VP8 / VP8L / VP8X first (VP8X: an image or animation frame chunk after it), with a valid frame signature. */
function* imageChunk(chunks: Chunk[], what: string): Walk<void> {
  const first = chunks[0];
  if (!first) throw corrupt(`${what} has no image chunk`);
  const image = first.id === 'VP8X' ? chunks.find((c) => c.id === 'VP8 ' || c.id === 'VP8L' || c.id === 'ANMF') : first;
  if (first.id === 'VP8X' && first.size < 10) throw corrupt(`${what} has a damaged VP8X chunk`);
  if (!image || !['VP8 ', 'VP8L', 'ANMF'].includes(image.id)) throw corrupt(`${what} has no VP8 or VP8L image chunk`);
  if (image.id === 'VP8 ') {
    const frame = yield* readExactly(image.data, 10, what);
    if (image.size < 10 || frame[3] !== 0x9d || frame[4] !== 0x01 || frame[5] !== 0x2a) throw corrupt(`${what} has a damaged VP8 frame header`);
    if ((frame.readUInt16LE(6) & 0x3fff) === 0 || (frame.readUInt16LE(8) & 0x3fff) === 0) throw corrupt(`${what} has zero width or height`);
  } else if (image.id === 'VP8L') {
    const sig = yield* readExactly(image.data, 1, what);
    if (image.size < 5 || sig[0] !== 0x2f) throw corrupt(`${what} has a damaged VP8L header`);
  }
}

export const webp = defineFormat({
  mimeType: 'image/webp',
  extensions: ['webp'],
  kind: 'image',
  label: 'WebP image',
  notes: 'RIFF chunk walk, RIFF size matches the file, VP8/VP8L/VP8X first with a valid frame header',
  *sniff(head) {
    return riffForm(head) === 'WEBP';
  },
  check: (size) => checkRiff(size, { name: 'WebP', requiredChunks: imageChunk }),
  pixelDataChecked: true,
});
