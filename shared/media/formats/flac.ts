import { readAt } from '../byte-walk.js';
import { defineFormat } from '../format-descriptor.js';
import { audioStart, checkFlac } from '../walks/audio.js';

export const flac = defineFormat({
  mimeType: 'audio/flac',
  extensions: ['flac'],
  streamed: 'id3',
  kind: 'audio',
  label: 'FLAC audio',
  notes: 'ID3v2 tags skipped, fLaC, metadata blocks with STREAMINFO first, first frame header CRC-8, last frame CRC-16 (finds a cut-off file)',
  /** "fLaC" at the start, or after ID3 tags (as c2pa-rs writes its manifest into a FLAC). */
  *sniff(head, size) {
    const start = yield* audioStart(head, size);
    return (yield* readAt(start, 4)).toString('latin1') === 'fLaC';
  },
  check: checkFlac,
});
