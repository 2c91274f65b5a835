import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, bmffDurationSeconds, checkBmff, hasBrands } from '../walks/bmff.js';

const BRANDS = new Set(['M4A ', 'M4B ']);

export const m4a = defineFormat({
  mimeType: 'audio/mp4',
  extensions: ['m4a', 'm4b'],
  streamed: 'bmff',
  kind: 'audio',
  label: 'M4A audio',
  notes: 'ISO BMFF box walk, ftyp brand M4A/M4B, a moov box',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major) => BRANDS.has(major));
  },
  check: (size) => checkBmff(size, 'M4A', 'movie'),
  bounds: (size) => assertBmffBoxesWithin(size, 'M4A'),
  durationSeconds: bmffDurationSeconds,
});
