import { ServiceError } from '../errors.js';
import { BmffUnsignableError, withBmffBoxes, type BmffBoxes } from './bmff-c2pa-boxes.js';
import { BmffMalformed, type BmffFileReader } from './bmff-walk.js';

/**
 * What a fragmented MP4 rendition (a DASH or HLS/CMAF representation: an init segment and its media segments, in
 * order) must be for the service to sign it as c2pa-rs signs one (sign_fragmented_files): checked when it is
 * uploaded, and again by the worker before it writes anything.
 *
 * - The init segment is a fragmented MP4's: a `moov` with an `mvex` (the tracks' fragment defaults), no media
 *   fragment of its own, and no manifest yet.
 * - Each media segment is one `moof` followed by one `mdat` at the top level (besides boxes such as `styp`, `sidx`,
 *   `prft`, `emsg`), as c2pa-rs requires, with no `merkle` box yet.
 * - It belongs to this init segment: every track its fragment describes (`tfhd` track_ID) is one the init segment
 *   extends (`trex`).
 * - The segments are in order: their fragments' sequence numbers (`mfhd`) increase.
 *
 * Only box headers and a few small fields are read. A part that fails is refused with a reason naming it (422).
 */

/** The rendition cannot be signed as sent; the reason names the part. Final: no retry helps. */
export class RenditionRejectedError extends ServiceError {
  constructor(code: 'init_segment_invalid' | 'fragment_invalid' | 'fragment_mismatch' | 'fragments_out_of_order' | 'rendition_already_signed', message: string) {
    super('unprocessable', code, message);
    this.name = 'RenditionRejectedError';
  }
}

/** What a media segment is checked against: the init segment's tracks, and the last segment's sequence number. */
export interface InitSegmentShape {
  trackIds: ReadonlySet<number>;
}

/** Walks the file as c2pa-rs does; `use` gets its top level. An unwalkable file is refused as `what` with `code`. */
async function walked<T>(filePath: string, code: 'init_segment_invalid' | 'fragment_invalid', what: string, use: (file: BmffFileReader, top: BmffBoxes) => Promise<T>): Promise<T> {
  return withBmffBoxes(filePath, use).catch((err: unknown) => {
    if (err instanceof BmffUnsignableError) throw new RenditionRejectedError(code, `${what}: ${err.message}`);
    throw err;
  });
}

/** The first 4 bytes after a FullBox's version and flags (trex, tfhd: track_ID; mfhd: sequence_number). */
async function firstField(file: BmffFileReader, box: { offset: number; size: number }): Promise<number> {
  const head = await file.exact(box.offset, Math.min(box.size, 20));
  const body = (head.readUInt32BE(0) === 1 ? 16 : 8) + 4;
  if (head.length < body + 4) throw new BmffMalformed('a box is cut short');
  return head.readUInt32BE(body);
}

/** Checks the init segment (`name`: the part's file name, for messages) and returns what its segments must match. */
export async function checkInitSegment(filePath: string, name: string): Promise<InitSegmentShape> {
  const what = `the init segment ${name}`;
  return walked(filePath, 'init_segment_invalid', what, async (file, top) => {
    if (!top.ftyp || !top.tree.has('/moov')) throw new RenditionRejectedError('init_segment_invalid', `${what} is not an ISO BMFF init segment (no ftyp or moov box)`);
    if (top.manifestBox) throw new RenditionRejectedError('rendition_already_signed', `${what} already carries a C2PA manifest; a signed rendition cannot be signed again`);
    if (!top.tree.has('/moov/mvex')) throw new RenditionRejectedError('init_segment_invalid', `${what} has no mvex box: it is not the init segment of a fragmented MP4`);
    if (top.boxes.some((b) => b.type === 'moof')) throw new RenditionRejectedError('init_segment_invalid', `${what} carries media fragments (moof): send them as fragment parts`);
    const trackIds = new Set<number>();
    for (const trex of top.tree.get('/moov/mvex/trex') ?? []) trackIds.add(await firstField(file, trex));
    if (!trackIds.size) throw new RenditionRejectedError('init_segment_invalid', `${what} extends no track (no trex box in its mvex)`);
    return { trackIds };
  });
}

/**
 * Checks media segment `index` (from 1; `name` its file name) against its init segment and the segment before it
 * (`previousSequence`, 0 for the first). Returns its fragment's sequence number.
 */
export async function checkMediaSegment(filePath: string, name: string, index: number, init: InitSegmentShape, previousSequence: number): Promise<number> {
  const what = `fragment ${index} (${name})`;
  return walked(filePath, 'fragment_invalid', what, async (file, top) => {
    const types = top.boxes.map((b) => b.type);
    const moof = types.indexOf('moof');
    if (types.filter((t) => t === 'moof').length !== 1 || types.filter((t) => t === 'mdat').length !== 1 || types.indexOf('mdat') < moof) {
      throw new RenditionRejectedError('fragment_invalid', `${what} is not one moof followed by one mdat (its top-level boxes: ${types.join(', ')})`);
    }
    if (top.c2paBoxes.length) throw new RenditionRejectedError('rendition_already_signed', `${what} already carries C2PA boxes; a signed rendition cannot be signed again`);
    for (const tfhd of top.tree.get('/moof/traf/tfhd') ?? []) {
      const track = await firstField(file, tfhd);
      if (!init.trackIds.has(track)) {
        throw new RenditionRejectedError('fragment_mismatch', `${what} is from another init segment: it describes track ${track}, which the init segment does not have (tracks ${[...init.trackIds].join(', ')})`);
      }
    }
    const mfhd = top.tree.get('/moof/mfhd')?.[0];
    if (!mfhd) throw new RenditionRejectedError('fragment_invalid', `${what} has no movie fragment header (mfhd)`);
    const sequence = await firstField(file, mfhd);
    if (sequence <= previousSequence) {
      throw new RenditionRejectedError('fragments_out_of_order', `${what} has fragment sequence number ${sequence}, not after the previous fragment's ${previousSequence}: send the fragments in order`);
    }
    return sequence;
  });
}

/** Checks a whole rendition: the init segment, then each media segment in order. */
export async function checkRendition(init: { path: string; name: string }, segments: readonly { path: string; name: string }[]): Promise<void> {
  const shape = await checkInitSegment(init.path, init.name);
  let sequence = 0;
  for (const [i, segment] of segments.entries()) sequence = await checkMediaSegment(segment.path, segment.name, i + 1, shape, sequence);
}
