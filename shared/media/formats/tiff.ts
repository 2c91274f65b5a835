import { defineFormat } from '../format-descriptor.js';
import { checkTiff, sniffTiff, tiffHeader } from '../walks/tiff.js';

export const tiff = defineFormat({
  mimeType: 'image/tiff',
  extensions: ['tif', 'tiff'],
  kind: 'image',
  label: 'TIFF image',
  notes: 'byte order, IFD chain (no loops) and entries in bounds, strips/tiles within the file; BigTIFF too',
  /** Any TIFF but a DNG (whose first IFD has DNGVersion); a TIFF too damaged to tell stays TIFF. */
  *sniff(head, size) {
    return tiffHeader(head) !== undefined && !(yield* sniffTiff(size)).dng;
  },
  check: checkTiff,
  pixelDataChecked: true,
});
