import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, checkBmff, GENERIC_HEIF_BRANDS, hasBrands } from '../walks/bmff.js';

export const AVIF_BRANDS: ReadonlySet<string> = new Set(['avif', 'avis']);

export const avif = defineFormat({
  mimeType: 'image/avif',
  extensions: ['avif'],
  kind: 'image',
  label: 'AVIF image',
  notes: 'ISO BMFF box walk over the whole file, ftyp brand avif/avis (or mif1 + avif), a meta box',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major, compatible) => AVIF_BRANDS.has(major) || (GENERIC_HEIF_BRANDS.has(major) && compatible.some((b) => AVIF_BRANDS.has(b))));
  },
  check: (size) => checkBmff(size, 'AVIF', 'images'),
  bounds: (size) => assertBmffBoxesWithin(size, 'AVIF'),
  pixelDataChecked: true,
});
