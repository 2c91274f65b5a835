import { BmffUnsignableError } from './bmff-c2pa-boxes.js';
import type { BmffBox, BmffFileReader } from './bmff-walk.js';

/**
 * The fields of an ISO BMFF file that hold absolute file offsets, which must move when a box is inserted before what
 * they point at: the ones c2pa-rs moves when it embeds a manifest (bmff_io.rs adjust_known_offsets): chunk offsets
 * (`stco`, `co64`), a top-level `meta`'s item locations (`iloc`, construction method 0), fragments' base data offsets
 * (`moof/traf/tfhd`), the random access index (`mfra/tfra`) and sample auxiliary information offsets (`saio`).
 * `iloc` is read as ISO/IEC 14496-12 lays it out (c2pa-rs sizes an extent's index by the base offset's size).
 */

/** A run of `count` offset fields of `width` bytes, `stride` bytes apart, the first at `at`. */
export interface FieldRun {
  at: number;
  count: number;
  stride: number;
  width: 4 | 8;
  /** The box the fields are in (for messages). */
  box: string;
}

/** A chunk offset table (`stco`): the one kind of 32-bit field that is widened (to `co64`) when an offset outgrows it. */
export interface ChunkOffsetTable {
  /** The box: where it starts and its whole size. */
  offset: number;
  size: number;
  headerSize: number;
  entries: FieldRun;
}

export interface OffsetFields {
  /** Every `stco`, each of which may have to become a `co64`. */
  stco: ChunkOffsetTable[];
  /** All other fields (`co64`, `iloc`, `tfhd`, `tfra`, `saio`), in file order. */
  others: FieldRun[];
}

/** More fields than any real file has (a fragmented file has one `tfhd` per track and fragment). */
const MAX_FIELD_RUNS = 1_000_000;
/** An `iloc` is parsed item by item: one larger than this is refused. */
const MAX_ILOC_BYTES = 16 * 1024 * 1024;

const STBL = '/moov/trak/mdia/minf/stbl';

/** The payload of a FullBox: after its header (8 or 16 bytes) and its version and flags. */
async function fullBox(file: BmffFileReader, box: BmffBox): Promise<{ version: number; flags: number; body: number; end: number; headerSize: number }> {
  const head = await file.exact(box.offset, 16);
  const headerSize = head.readUInt32BE(0) === 1 ? 16 : 8;
  const ext = await file.exact(box.offset + headerSize, 4);
  return { version: ext[0]!, flags: ext.readUIntBE(1, 3), body: box.offset + headerSize + 4, end: box.offset + box.size, headerSize };
}

function within(run: FieldRun, end: number): FieldRun {
  if (run.count > 0 && run.at + (run.count - 1) * run.stride + run.width > end) throw new BmffUnsignableError(`its ${run.box} box is cut short`);
  return run;
}

async function chunkOffsets(file: BmffFileReader, box: BmffBox, width: 4 | 8, name: string) {
  const { body, end, headerSize } = await fullBox(file, box);
  const count = (await file.exact(body, 4)).readUInt32BE(0);
  return { headerSize, run: within({ at: body + 4, count, stride: width, width, box: name }, end) };
}

/** `saio`: after version and flags, an optional aux_info_type and parameter (flags & 1), the count, the offsets. */
async function saioFields(file: BmffFileReader, box: BmffBox): Promise<FieldRun> {
  const { version, flags, body, end } = await fullBox(file, box);
  const countAt = body + (flags & 1 ? 8 : 0);
  const count = (await file.exact(countAt, 4)).readUInt32BE(0);
  const width = version === 0 ? 4 : 8;
  return within({ at: countAt + 4, count, stride: width, width, box: 'saio' }, end);
}

/** `tfhd` with base-data-offset-present (flags & 1): the 64-bit offset after the track ID. */
async function tfhdField(file: BmffFileReader, box: BmffBox): Promise<FieldRun | undefined> {
  const { flags, body, end } = await fullBox(file, box);
  return flags & 1 ? within({ at: body + 4, count: 1, stride: 8, width: 8, box: 'tfhd' }, end) : undefined;
}

/** `tfra`: entries of time and moof_offset (32- or 64-bit by version), then the traf, trun and sample numbers. */
async function tfraField(file: BmffFileReader, box: BmffBox): Promise<FieldRun> {
  const { version, body, end } = await fullBox(file, box);
  const head = await file.exact(body, 12);
  const sizes = head.readUInt32BE(4);
  const count = head.readUInt32BE(8);
  const width = version === 1 ? 8 : 4;
  const stride = 2 * width + ((sizes >> 4) & 3) + 1 + ((sizes >> 2) & 3) + 1 + (sizes & 3) + 1;
  return within({ at: body + 12 + width, count, stride, width, box: 'tfra' }, end);
}

/** `iloc` (ISO/IEC 14496-12 8.11.3): the base offsets and extent offsets of items stored in the file (construction method 0). */
async function ilocFields(file: BmffFileReader, box: BmffBox): Promise<FieldRun[]> {
  if (box.size > MAX_ILOC_BYTES) throw new BmffUnsignableError(`its iloc box is over ${MAX_ILOC_BYTES} bytes`);
  const { version, body, end } = await fullBox(file, box);
  if (version > 2) throw new BmffUnsignableError(`its iloc box has version ${version}`);
  const bytes = await file.exact(body, end - body);
  let at = 0;
  const read = (size: number): number => {
    if (at + size > bytes.length) throw new BmffUnsignableError('its iloc box is cut short');
    const value = size === 0 ? 0 : size === 2 ? bytes.readUInt16BE(at) : size === 4 ? bytes.readUInt32BE(at) : size === 8 ? Number(bytes.readBigUInt64BE(at)) : NaN;
    if (Number.isNaN(value)) throw new BmffUnsignableError(`its iloc box has a field of ${size} bytes`);
    at += size;
    return value;
  };
  const sizes = read(2);
  const [offsetSize, lengthSize, baseOffsetSize, indexSize] = [(sizes >> 12) & 15, (sizes >> 8) & 15, (sizes >> 4) & 15, version === 0 ? 0 : sizes & 15];
  const fields: FieldRun[] = [];
  const field = (width: number) => {
    if (width === 4 || width === 8) fields.push({ at: body + at - width, count: 1, stride: width, width, box: 'iloc' });
  };
  const items = read(version < 2 ? 2 : 4);
  for (let i = 0; i < items; i += 1) {
    read(version < 2 ? 2 : 4); // item_ID
    const method = version === 0 ? 0 : read(2) & 15;
    read(2); // data_reference_index
    const baseOffset = read(baseOffsetSize);
    if (method === 0 && baseOffsetSize) field(baseOffsetSize);
    const extents = read(2);
    for (let e = 0; e < extents; e += 1) {
      read(indexSize);
      const extentOffset = read(offsetSize);
      // An extent's offset is a file offset only when there is no base offset to add it to.
      if (method === 0 && baseOffset === 0 && extentOffset !== 0) field(offsetSize);
      read(lengthSize);
    }
  }
  return fields;
}

/** Finds every offset field c2pa-rs moves, in the walked file. */
export async function offsetFields(file: BmffFileReader, tree: Map<string, BmffBox[]>): Promise<OffsetFields> {
  const stco: ChunkOffsetTable[] = [];
  for (const box of tree.get(`${STBL}/stco`) ?? []) {
    const { headerSize, run } = await chunkOffsets(file, box, 4, 'stco');
    stco.push({ offset: box.offset, size: box.size, headerSize, entries: run });
  }
  const others: FieldRun[] = [];
  for (const box of tree.get(`${STBL}/co64`) ?? []) others.push((await chunkOffsets(file, box, 8, 'co64')).run);
  for (const box of tree.get('/meta/iloc') ?? []) others.push(...(await ilocFields(file, box)));
  for (const box of tree.get('/moof/traf/tfhd') ?? []) {
    const run = await tfhdField(file, box);
    if (run) others.push(run);
    if (others.length > MAX_FIELD_RUNS) throw new BmffUnsignableError(`it has over ${MAX_FIELD_RUNS} fragments`);
  }
  for (const box of tree.get('/mfra/tfra') ?? []) others.push(await tfraField(file, box));
  for (const box of tree.get(`${STBL}/saio`) ?? []) others.push(await saioFields(file, box));
  others.sort((a, b) => a.at - b.at);
  return { stco, others };
}

/**
 * A segment index (`sidx`, ISO/IEC 14496-12 8.16.3): its first_offset says how far past the end of the sidx the media
 * it indexes starts, so a box inserted in between must add to it (c2pa-rs leaves it, which leaves a player's seek in a
 * DASH segment pointing at the inserted box).
 */
export interface SegmentIndex {
  /** Where the sidx starts, and where it ends (which first_offset counts from). */
  offset: number;
  end: number;
  /** The first_offset field: where, how wide, its value. */
  at: number;
  width: 4 | 8;
  firstOffset: number;
}

/** Every top-level `sidx` of the walked file. */
export async function segmentIndexes(file: BmffFileReader, tree: Map<string, BmffBox[]>): Promise<SegmentIndex[]> {
  const found: SegmentIndex[] = [];
  for (const box of tree.get('/sidx') ?? []) {
    const { version, body, end } = await fullBox(file, box);
    const width = version === 0 ? 4 : 8;
    const at = body + 8 + width;
    if (at + width > end) throw new BmffUnsignableError('its sidx box is cut short');
    const [value] = await fieldValues(file, { at, count: 1, stride: width, width, box: 'sidx' }).next().then((r) => r.value ?? []);
    found.push({ offset: box.offset, end, at, width, firstOffset: value ?? 0 });
  }
  return found;
}

/** Reads the values of a run of fields, `batch` at a time (a chunk offset table can be megabytes). */
export async function* fieldValues(file: BmffFileReader, run: FieldRun, batch = 16384): AsyncGenerator<number[]> {
  for (let first = 0; first < run.count; first += batch) {
    const n = Math.min(batch, run.count - first);
    const bytes = await file.exact(run.at + first * run.stride, (n - 1) * run.stride + run.width);
    const values: number[] = [];
    for (let i = 0; i < n; i += 1) values.push(run.width === 4 ? bytes.readUInt32BE(i * run.stride) : Number(bytes.readBigUInt64BE(i * run.stride)));
    yield values;
  }
}
