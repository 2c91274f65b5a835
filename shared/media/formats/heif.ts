import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, checkBmff, GENERIC_HEIF_BRANDS, hasBrands } from '../walks/bmff.js';
import { AVIF_BRANDS } from './avif.js';
import { HEIC_BRANDS } from './heic.js';

/** Not decoded to check its pixels: no decoder here for its codecs. */
export const heif = defineFormat({
  mimeType: 'image/heif',
  extensions: ['heif', 'hif'],
  kind: 'image',
  label: 'HEIF image',
  notes: 'ISO BMFF box walk, ftyp brand mif1/msf1 without AVIF or HEVC brands, a meta box',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major, compatible) => GENERIC_HEIF_BRANDS.has(major) && !compatible.some((b) => AVIF_BRANDS.has(b) || HEIC_BRANDS.has(b)));
  },
  check: (size) => checkBmff(size, 'HEIF', 'images'),
  bounds: (size) => assertBmffBoxesWithin(size, 'HEIF'),
});
