import { readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

/** Bytes per value of each TIFF field type (6.0, plus BigTIFF's 16-18). */
const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };

const TAG = {
  width: 256,
  height: 257,
  stripOffsets: 273,
  stripByteCounts: 279,
  tileOffsets: 324,
  tileByteCounts: 325,
  subIfds: 330,
  exifIfd: 34665,
  gpsIfd: 34853,
  interopIfd: 40965,
  dngVersion: 50706,
} as const;

const MAX_IFDS = 1024;
const MAX_ENTRIES = 4096;
/** Strip and tile tables are read this many values at a time. */
const TABLE_SLICE = 8192;

interface Header {
  little: boolean;
  big: boolean;
  firstIfd: number;
}

interface Entry {
  tag: number;
  type: number;
  count: number;
  /** Where the values are: inside the entry, or at the offset it holds. */
  valuePos: number;
}

const what = 'the TIFF';

function uint(buf: Buffer, at: number, bytes: number, little: boolean): number {
  if (bytes === 1) return buf[at]!;
  if (bytes === 2) return little ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
  if (bytes === 4) return little ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
  const v = little ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('the TIFF has an offset out of range');
  return Number(v);
}

/** The byte order, classic or BigTIFF, and the first IFD's offset; undefined when this is not TIFF at all. */
export function tiffHeader(head: Buffer): Header | undefined {
  const order = head.toString('latin1', 0, 2);
  if (head.length < 8 || (order !== 'II' && order !== 'MM')) return undefined;
  const little = order === 'II';
  const magic = little ? head.readUInt16LE(2) : head.readUInt16BE(2);
  if (magic === 42) return { little, big: false, firstIfd: uint(head, 4, 4, little) };
  if (magic === 43 && head.length >= 16 && uint(head, 4, 2, little) === 8 && uint(head, 6, 2, little) === 0) {
    return { little, big: true, firstIfd: uint(head, 8, 8, little) };
  }
  return undefined;
}

/** One IFD's entries and the offset of the next IFD; every entry's values must lie within the file. */
function* readIfd(h: Header, offset: number, size: number): Walk<{ entries: Entry[]; next: number }> {
  const countBytes = h.big ? 8 : 2;
  const entryBytes = h.big ? 20 : 12;
  const inline = h.big ? 8 : 4;
  if (offset < (h.big ? 16 : 8) || offset + countBytes > size) throw corrupt(`the TIFF has an IFD offset (${offset}) outside the file`);
  const count = uint(yield* readExactly(offset, countBytes, what), 0, countBytes, h.little);
  if (count === 0 || count > MAX_ENTRIES) throw corrupt(`the TIFF has a damaged IFD at byte ${offset}`);
  const bytes = yield* readExactly(offset + countBytes, count * entryBytes + inline, what);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i += 1) {
    const at = i * entryBytes;
    const tag = uint(bytes, at, 2, h.little);
    const type = uint(bytes, at + 2, 2, h.little);
    const n = uint(bytes, at + 4, h.big ? 8 : 4, h.little);
    const valueAt = at + (h.big ? 12 : 8);
    const typeSize = TYPE_SIZE[type];
    if (typeSize === undefined) continue; // readers skip unknown types
    const length = n * typeSize;
    let valuePos = offset + countBytes + valueAt;
    if (length > inline) {
      valuePos = uint(bytes, valueAt, inline, h.little);
      if (valuePos + length > size) throw corrupt(`the TIFF is truncated or damaged: tag ${tag} points outside the file`);
    }
    entries.push({ tag, type, count: n, valuePos });
  }
  return { entries, next: uint(bytes, count * entryBytes, inline, h.little) };
}

/** The unsigned integer values of an entry (SHORT, LONG, LONG8 or IFD types), read in slices through `each`. */
function* eachValue(h: Header, e: Entry, each: (value: number, index: number) => void): Walk<void> {
  const typeSize = TYPE_SIZE[e.type]!;
  if (![3, 4, 13, 16, 18].includes(e.type)) throw corrupt(`the TIFF has tag ${e.tag} of an unexpected type`);
  for (let start = 0; start < e.count; start += TABLE_SLICE) {
    const n = Math.min(TABLE_SLICE, e.count - start);
    const bytes = yield* readExactly(e.valuePos + start * typeSize, n * typeSize, what);
    for (let i = 0; i < n; i += 1) each(uint(bytes, i * typeSize, typeSize, h.little), start + i);
  }
}

function* values(h: Header, e: Entry): Walk<number[]> {
  const out: number[] = [];
  yield* eachValue(h, e, (v) => out.push(v));
  return out;
}

/** Strips or tiles: every offset + byte count within the file (the check that finds a cut-off TIFF). */
function* checkImageData(h: Header, entries: Entry[], size: number, where: string): Walk<void> {
  const byTag = new Map(entries.map((e) => [e.tag, e]));
  for (const [offsetsTag, countsTag] of [[TAG.stripOffsets, TAG.stripByteCounts], [TAG.tileOffsets, TAG.tileByteCounts]] as const) {
    const offsets = byTag.get(offsetsTag);
    if (!offsets) continue;
    const counts = byTag.get(countsTag);
    if (!counts || counts.count !== offsets.count) throw corrupt(`the TIFF ${where} has image data offsets without matching byte counts`);
    // The two tables are walked in step, one slice of each at a time.
    for (let start = 0; start < offsets.count; start += TABLE_SLICE) {
      const n = Math.min(TABLE_SLICE, offsets.count - start);
      const slice = (e: Entry): Entry => ({ ...e, count: n, valuePos: e.valuePos + start * TYPE_SIZE[e.type]! });
      const o = yield* values(h, slice(offsets));
      const c = yield* values(h, slice(counts));
      for (let i = 0; i < n; i += 1) {
        if (o[i]! + c[i]! > size) throw corrupt(`the TIFF is truncated: ${where} image data runs past the end of the file`);
      }
    }
  }
}

export interface TiffInfo {
  dng: boolean;
}

/** Reads the header and the first IFD's entries only: enough to tell DNG (DNGVersion tag) from TIFF. */
export function* sniffTiff(size: number): Walk<TiffInfo> {
  const head = yield* readAt(0, 16);
  const h = tiffHeader(head);
  if (!h) throw corrupt('the TIFF header is damaged');
  try {
    const { entries } = yield* readIfd(h, h.firstIfd, size);
    return { dng: entries.some((e) => e.tag === TAG.dngVersion) };
  } catch {
    return { dng: false }; // a damaged file is still TIFF; the structure check (or c2pa-rs) judges it
  }
}

/**
 * TIFF (and DNG, BigTIFF): byte order and magic; the chain of IFDs (offsets in bounds, no loops, at most 1024); each
 * IFD's entries with their values in bounds; the first IFD with a width and height; the strips or tiles of every
 * image IFD (and of DNG's SubIFDs, where the raw data lives) within the file; Exif/GPS IFD pointers in bounds.
 */
export function* checkTiff(size: number): Walk<TiffInfo> {
  const h = tiffHeader(yield* readAt(0, 16));
  if (!h) throw corrupt('the TIFF header is damaged');
  const seen = new Set<number>();
  function* visit(offset: number, where: string, image: boolean): Walk<{ entries: Entry[]; next: number }> {
    if (seen.has(offset)) throw corrupt('the TIFF IFD chain loops');
    seen.add(offset);
    if (seen.size > MAX_IFDS) throw corrupt('the TIFF has too many IFDs');
    const ifd = yield* readIfd(h!, offset, size);
    if (image) yield* checkImageData(h!, ifd.entries, size, where);
    for (const e of ifd.entries) {
      if (e.tag === TAG.subIfds) {
        for (const sub of yield* values(h!, e)) yield* visit(sub, `${where} SubIFD`, true);
      } else if (e.tag === TAG.exifIfd || e.tag === TAG.gpsIfd || e.tag === TAG.interopIfd) {
        const [sub] = yield* values(h!, e);
        if (sub) yield* visit(sub, `${where} ${e.tag === TAG.gpsIfd ? 'GPS' : 'Exif'} IFD`, false);
      }
    }
    return ifd;
  }
  let dng = false;
  let offset = h.firstIfd;
  for (let index = 0; offset !== 0; index += 1) {
    const { entries, next } = yield* visit(offset, `IFD ${index}`, true);
    if (index === 0) {
      dng = entries.some((e) => e.tag === TAG.dngVersion);
      const width = entries.find((e) => e.tag === TAG.width);
      const height = entries.find((e) => e.tag === TAG.height);
      if (!width || !height) throw corrupt('the TIFF first IFD has no image width or height');
      const [w] = yield* values(h, width);
      const [hh] = yield* values(h, height);
      if (!w || !hh) throw corrupt('the TIFF has zero width or height');
    }
    offset = next;
  }
  return { dng };
}
