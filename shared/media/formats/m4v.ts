import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, bmffDurationSeconds, checkBmff, hasBrands } from '../walks/bmff.js';

const BRANDS = new Set(['M4V ', 'M4VH', 'M4VP']);

export const m4v = defineFormat({
  mimeType: 'video/x-m4v',
  extensions: ['m4v'],
  streamed: 'bmff',
  kind: 'video',
  label: 'M4V video',
  notes: 'as MP4, ftyp brand M4V',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major) => BRANDS.has(major));
  },
  check: (size) => checkBmff(size, 'M4V', 'movie'),
  bounds: (size) => assertBmffBoxesWithin(size, 'M4V'),
  durationSeconds: bmffDurationSeconds,
});
