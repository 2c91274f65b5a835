import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, bmffDurationSeconds, checkBmff, hasBrands } from '../walks/bmff.js';

const BRANDS = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01', 'dash', 'mmp4', 'XAVC', 'MSNV']);

export const mp4 = defineFormat({
  mimeType: 'video/mp4',
  extensions: ['mp4'],
  streamed: 'bmff',
  kind: 'video',
  label: 'MP4 video',
  notes: 'ISO BMFF box walk (64-bit sizes, size 0 to the end), ftyp brand isom/mp41/mp42/avc1/..., a moov box and its track containers in bounds',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major) => BRANDS.has(major));
  },
  check: (size) => checkBmff(size, 'MP4', 'movie'),
  bounds: (size) => assertBmffBoxesWithin(size, 'MP4'),
  durationSeconds: bmffDurationSeconds,
});
