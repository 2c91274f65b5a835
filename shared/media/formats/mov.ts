import { defineFormat } from '../format-descriptor.js';
import { assertBmffBoxesWithin, bmffDurationSeconds, checkBmff, hasBrands } from '../walks/bmff.js';

/** Old QuickTime files have no ftyp: they start with one of these atoms. */
const OLD_FIRST_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

export const mov = defineFormat({
  mimeType: 'video/quicktime',
  extensions: ['mov', 'qt'],
  streamed: 'bmff',
  kind: 'video',
  label: 'QuickTime video',
  notes: 'ISO BMFF box walk, ftyp brand "qt  ", a moov box (old MOV without ftyp: refused, c2pa-rs cannot sign it)',
  *sniff(_head, size) {
    return yield* hasBrands(size, (major) => major === 'qt  ');
  },
  check: (size) => checkBmff(size, 'MOV', 'movie'),
  bounds: (size) => assertBmffBoxesWithin(size, 'MOV'),
  durationSeconds: bmffDurationSeconds,
  /** c2pa-rs 0.91 refuses old MOV files (UnsupportedType; test/media/c2pa-support.test.ts keeps checking): named here. */
  *refuse(head) {
    const old = head.length >= 8 && OLD_FIRST_ATOMS.has(head.toString('latin1', 4, 8)) && (head.readUInt32BE(0) === 1 || head.readUInt32BE(0) >= 8);
    return old ? 'a QuickTime file without a ftyp box (an old MOV) cannot carry Content Credentials; re-save it as a current MOV or MP4 (for example ffmpeg -i in.mov -c copy out.mov)' : undefined;
  },
});
