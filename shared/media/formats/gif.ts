import { defineFormat } from '../format-descriptor.js';
import { checkGif } from '../walks/gif.js';

export const gif = defineFormat({
  mimeType: 'image/gif',
  extensions: ['gif'],
  kind: 'image',
  label: 'GIF image',
  notes: 'header, logical screen, colour tables, every block up to the trailer at the end of the file',
  *sniff(head) {
    return /^GIF8[79]a/.test(head.toString('latin1', 0, 6));
  },
  check: checkGif,
  pixelDataChecked: true,
});
