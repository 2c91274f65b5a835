import { defineFormat } from '../format-descriptor.js';
import { checkPng, PNG_SIGNATURE } from '../walks/jpeg-png.js';

export const png = defineFormat({
  mimeType: 'image/png',
  extensions: ['png'],
  kind: 'image',
  label: 'PNG image',
  notes: 'every chunk in bounds with its CRC, IHDR first, image data, IEND',
  *sniff(head) {
    return head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE);
  },
  check: checkPng,
  pixelDataChecked: true,
});
