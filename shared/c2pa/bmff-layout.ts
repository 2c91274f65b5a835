import { BmffUnsignableError, type BmffBoxes } from './bmff-c2pa-boxes.js';
import { fieldValues, segmentIndexes, type ChunkOffsetTable, type FieldRun, type OffsetFields } from './bmff-offset-fields.js';
import { C2PA_UUID, type BmffFileReader } from './bmff-walk.js';

/**
 * The signed file's layout, planned before a byte of it is written: where the C2PA manifest goes and how much room it
 * gets, where every box and offset field of the source ends up, and which top-level boxes the BMFF hash covers.
 *
 * As c2pa-rs lays it out (bmff_io.rs write_cai): the manifest's room is right after the ftyp box, or in place of the
 * file's existing C2PA manifest box (and of the `free` box right after it, which c2pa-rs would keep). Every offset
 * field that points past an inserted or removed byte moves by as much (bmff-offset-fields.ts lists them). One thing c2pa-rs does not do: a 32-bit chunk offset table (`stco`) with an entry
 * pushed past 4 GiB becomes a 64-bit one (`co64`), which grows the table, its boxes up to `moov`, and (when `moov`
 * comes first) moves the media again; planned until nothing more needs widening. Any other 32-bit offset pushed past
 * 4 GiB refuses the file.
 *
 * A media segment of a fragmented MP4 gets its room (for its `merkle` box) where c2pa-rs inserts it, right before its
 * `moof` (`at`). A `sidx` before the room whose media starts after it has its first_offset moved by the room too.
 *
 * The room is reserved whole before hashing: the C2PA box and the `free` box after it are excluded from the hash as
 * whole boxes (c2pa.hash.bmff.v3's default exclusions), so the hash depends on the room's size, not on the manifest.
 */

/** A range of the source replaced in the output: the manifest's room, or a `stco` rewritten as `co64`. */
export interface Edit {
  at: number;
  removed: number;
  inserted: number;
  content: { kind: 'room' } | { kind: 'co64'; table: ChunkOffsetTable };
}

/** A field that grows by a fixed amount: a box size, because a table inside the box grew; a `sidx`'s first_offset. */
export interface SizeField {
  at: number;
  width: 4 | 8;
  add: number;
}

/** A top-level box of the output: where it is, and whether the BMFF hash covers it (with its offset). */
export interface OutputBox {
  type: string;
  offset: number;
  size: number;
  hashed: boolean;
}

export interface BmffLayout {
  sourceSize: number;
  outputSize: number;
  /** In source order. */
  edits: Edit[];
  /** Offset fields copied with the source and moved (every one but the `stco` tables rewritten as `co64`), in source order. */
  fields: FieldRun[];
  /** In source order. */
  sizeFields: SizeField[];
  /** The top level of the output, in order (the room is one `free` box until the manifest is written into it). */
  boxes: OutputBox[];
  /** The manifest's room in the output. */
  room: { offset: number; size: number };
  /** Where a source offset lands in the output. */
  moved: (offset: number) => number;
}

const U32_MAX = 0xffffffff;
/** The top-level boxes c2pa-rs's default v3 exclusions leave out whole (besides C2PA `uuid` boxes). */
const EXCLUDED_TYPES = new Set(['ftyp', 'mfra', 'free', 'skip']);

/** `moved` for a set of edits: each edit ending at or before an offset moves it by what it added. */
function mover(edits: readonly Edit[]): (offset: number) => number {
  const steps = edits.map((e) => ({ end: e.at + e.removed, delta: e.inserted - e.removed }));
  return (offset) => {
    let out = offset;
    for (const { end, delta } of steps) if (end <= offset) out += delta;
    return out;
  };
}

function co64Edit(table: ChunkOffsetTable): Edit {
  const inserted = table.size + 4 * table.entries.count;
  if (inserted > U32_MAX) throw new BmffUnsignableError('a chunk offset table would grow past 4 GiB');
  return { at: table.offset, removed: table.size, inserted, content: { kind: 'co64', table } };
}

async function exceeds32Bits(file: BmffFileReader, run: FieldRun, moved: (offset: number) => number): Promise<boolean> {
  for await (const values of fieldValues(file, run)) if (values.some((v) => moved(v) > U32_MAX)) return true;
  return false;
}

/** The size fields of the boxes (up to `moov`) around each table that grew. */
async function growingSizeFields(file: BmffFileReader, top: BmffBoxes, grown: readonly Edit[]): Promise<SizeField[]> {
  const byAt = new Map<number, SizeField>();
  for (const edit of grown) {
    const growth = edit.inserted - edit.removed;
    const parts = '/moov/trak/mdia/minf/stbl'.split('/').slice(1);
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const path = `/${parts.slice(0, depth).join('/')}`;
      const box = (top.tree.get(path) ?? []).find((b) => b.offset < edit.at && edit.at < b.offset + b.size);
      if (!box) throw new BmffUnsignableError(`a chunk offset table lies outside its ${path} box`);
      const head = await file.exact(box.offset, 16);
      const raw = head.readUInt32BE(0);
      if (raw === 0) continue; // to the end of the file, whatever its size
      const field: SizeField = byAt.get(box.offset) ?? { at: raw === 1 ? box.offset + 8 : box.offset, width: raw === 1 ? 8 : 4, add: 0 };
      field.add += growth;
      if (field.width === 4 && box.size + field.add > U32_MAX) throw new BmffUnsignableError(`its ${path} box would grow past 4 GiB`);
      byAt.set(box.offset, field);
    }
  }
  return [...byAt.values()].sort((a, b) => a.at - b.at);
}

/** The `sidx` first_offset fields the edits stretch: each moved by what is inserted between its sidx and its media. */
async function stretchedSegmentIndexes(file: BmffFileReader, top: BmffBoxes, moved: (offset: number) => number): Promise<SizeField[]> {
  const fields: SizeField[] = [];
  for (const sidx of await segmentIndexes(file, top.tree)) {
    // The sidx moves whole (nothing is inserted inside it); what is inserted between it and its media stretches it.
    const target = sidx.end + sidx.firstOffset;
    const add = moved(target) - target - (moved(sidx.offset) - sidx.offset);
    if (add === 0) continue;
    if (sidx.width === 4 && sidx.firstOffset + add > U32_MAX) throw new BmffUnsignableError('its sidx first_offset would pass 4 GiB');
    fields.push({ at: sidx.at, width: sidx.width, add });
  }
  return fields;
}

/**
 * What the room replaces in a file that carries a manifest: its manifest box, and the `free` box right after it when
 * there is one (the rest of the room a signing kept: a file signed again and again does not collect them).
 */
function replacedBoxes(top: BmffBoxes): { offset: number; size: number }[] {
  const manifest = top.manifestBox;
  if (!manifest) return [];
  const after = top.boxes.find((b) => b.offset === manifest.offset + manifest.size);
  return after?.type === 'free' ? [manifest, after] : [manifest];
}

/**
 * Where the room goes: `at` (a media segment's moof), else in place of `replaced` (replacedBoxes), else right after
 * ftyp.
 */
function roomEdit(top: BmffBoxes, roomSize: number, at: number | undefined, replaced: readonly { offset: number; size: number }[]): Edit {
  if (at !== undefined) return { at, removed: 0, inserted: roomSize, content: { kind: 'room' } };
  if (replaced.length) return { at: replaced[0]!.offset, removed: replaced.reduce((n, b) => n + b.size, 0), inserted: roomSize, content: { kind: 'room' } };
  if (!top.ftyp) throw new BmffUnsignableError('the file has no ftyp box');
  return { at: top.ftyp.offset + top.ftyp.size, removed: 0, inserted: roomSize, content: { kind: 'room' } };
}

/**
 * Plans the output for a room of `roomSize` bytes (at least 8: it is one `free` box until the manifest or the `merkle`
 * box is written), placed as c2pa-rs places a manifest, or at `options.at` (a top-level box's offset).
 * `fields`: the source's offset fields (offsetFields).
 */
export async function planBmffLayout(file: BmffFileReader, top: BmffBoxes, fields: OffsetFields, roomSize: number, options: { at?: number } = {}): Promise<BmffLayout> {
  if (roomSize < 8) throw new RangeError('the manifest room holds at least a free box header');
  const replacing = options.at === undefined ? replacedBoxes(top) : [];
  const room = roomEdit(top, roomSize, options.at, replacing);
  const replaced = new Set(replacing.map((b) => b.offset));

  const widened = new Set<ChunkOffsetTable>();
  let edits: Edit[];
  let moved: (offset: number) => number;
  for (;;) {
    edits = [room, ...[...widened].map(co64Edit)].sort((a, b) => a.at - b.at);
    moved = mover(edits);
    let more = false;
    for (const table of fields.stco) {
      if (widened.has(table) || !(await exceeds32Bits(file, table.entries, moved))) continue;
      widened.add(table);
      more = true;
    }
    if (!more) break;
  }
  for (const run of fields.others) {
    if (run.width === 4 && (await exceeds32Bits(file, run, moved))) throw new BmffUnsignableError(`an offset in its ${run.box} box would pass 4 GiB once the manifest is inserted`);
  }

  const grown = edits.filter((e) => e.content.kind === 'co64');
  const growthWithin = (offset: number, size: number) => grown.filter((e) => e.at >= offset && e.at < offset + size).reduce((n, e) => n + e.inserted - e.removed, 0);
  const boxes: OutputBox[] = top.boxes
    .filter((b) => !replaced.has(b.offset))
    .map((b) => ({
      type: b.type,
      offset: moved(b.offset),
      size: b.size + growthWithin(b.offset, b.size),
      hashed: !EXCLUDED_TYPES.has(b.type) && !(b.type === 'uuid' && b.at8.equals(C2PA_UUID)),
    }));
  const roomOffset = room.at + edits.filter((e) => e !== room && e.at + e.removed <= room.at).reduce((n, e) => n + e.inserted - e.removed, 0);
  boxes.push({ type: 'free', offset: roomOffset, size: roomSize, hashed: false });
  boxes.sort((a, b) => a.offset - b.offset);

  return {
    sourceSize: top.size,
    outputSize: top.size + edits.reduce((n, e) => n + e.inserted - e.removed, 0),
    edits,
    fields: [...fields.others, ...fields.stco.filter((t) => !widened.has(t)).map((t) => t.entries)].sort((a, b) => a.at - b.at),
    sizeFields: [...(await growingSizeFields(file, top, grown)), ...(await stretchedSegmentIndexes(file, top, moved))].sort((a, b) => a.at - b.at),
    boxes,
    room: { offset: roomOffset, size: roomSize },
    moved,
  };
}
