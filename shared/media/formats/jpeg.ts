import { defineFormat } from '../format-descriptor.js';
import { checkJpeg } from '../walks/jpeg-png.js';

export const jpeg = defineFormat({
  mimeType: 'image/jpeg',
  extensions: ['jpg', 'jpeg'],
  kind: 'image',
  label: 'JPEG image',
  notes: 'marker segments up to the scan, a frame header, end-of-image marker',
  *sniff(head) {
    return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
  },
  check: checkJpeg,
  pixelDataChecked: true,
});
