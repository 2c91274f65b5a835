import { defineFormat } from '../format-descriptor.js';
import { audioStart, checkMp3, looksLikeMp3 } from '../walks/audio.js';

export const mp3 = defineFormat({
  mimeType: 'audio/mpeg',
  extensions: ['mp3'],
  streamed: 'id3',
  kind: 'audio',
  label: 'MP3 audio',
  notes: 'ID3v2 tags skipped by size, every Layer III frame header to the end (ID3v1/APE/Lyrics3 tags allowed), Xing/Info byte count',
  /** Three alike frames in a row; after an ID3 tag, which says audio follows, one is enough. */
  *sniff(head, size) {
    const start = yield* audioStart(head, size);
    return yield* looksLikeMp3(start, size, start > 0 ? 1 : 3);
  },
  check: checkMp3,
});
