import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, checkBmff, GENERIC_HEIF_BRANDS, hasBrands } from '../walks/bmff.js';
import { AVIF_BRANDS } from './avif.js';

export const HEIC_BRANDS: ReadonlySet<string> = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);

/** Not decoded to check its pixels: sharp's prebuilt libvips has no HEVC decoder. */
export const heic = defineFormat({
  mimeType: 'image/heic',
  extensions: ['heic'],
  kind: 'image',
  label: 'HEIC image',
  notes: 'ISO BMFF box walk, ftyp brand heic/heix/hevc/... (or mif1 + heic), a meta box',
  /** A generic HEIF major brand naming both AV1 and HEVC among its compatible brands is AVIF. */
  *sniff(_head, size) {
    return yield* hasBrands(
      size,
      (major, compatible) => HEIC_BRANDS.has(major) || (GENERIC_HEIF_BRANDS.has(major) && compatible.some((b) => HEIC_BRANDS.has(b)) && !compatible.some((b) => AVIF_BRANDS.has(b))),
    );
  },
  check: (size) => checkBmff(size, 'HEIC', 'images'),
  bounds: (size) => assertBmffBoxesWithin(size, 'HEIC'),
});
