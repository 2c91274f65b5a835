import { defineFormat } from '../format-descriptor.js';
import { checkJxl, isJxlCodestream, isJxlContainer } from '../walks/bmff.js';

/** Not decoded to check its pixels: sharp's prebuilt libvips has no JPEG XL decoder. */
export const jxl = defineFormat({
  mimeType: 'image/jxl',
  extensions: ['jxl'],
  kind: 'image',
  label: 'JPEG XL image',
  notes: 'container format only (a bare codestream cannot carry a manifest): signature box, ftyp "jxl ", boxes in bounds, jxlc/jxlp codestream',
  *sniff(head) {
    return isJxlContainer(head);
  },
  check: checkJxl,
  *refuse(head) {
    return isJxlCodestream(head) ? 'a bare JPEG XL codestream cannot carry Content Credentials; use the JPEG XL container format' : undefined;
  },
});
