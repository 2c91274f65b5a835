import { defineFormat } from '../format-descriptor.js';
import { checkTiff, sniffTiff, tiffHeader } from '../walks/tiff.js';

/** Not decoded to check its pixels: raw data in lossless JPEG, which libvips cannot decode, is valid. */
export const dng = defineFormat({
  mimeType: 'image/x-adobe-dng',
  extensions: ['dng'],
  kind: 'image',
  label: 'DNG raw image',
  notes: 'a TIFF whose first IFD has DNGVersion; TIFF checks plus SubIFDs',
  *sniff(head, size) {
    return tiffHeader(head) !== undefined && (yield* sniffTiff(size)).dng;
  },
  check: checkTiff,
});
