import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { readAt, runOnFile, type Walk } from '../media/byte-walk.js';
import { MediaRejectedError } from '../media/errors.js';
import { identifyMedia } from '../media/formats.js';
import { BINDING_LIMITS, BindingLimitExceeded, counted } from './binding-limits.js';
import { bytesOf, isCount, optional, type CrJsonBytes } from './crjson-values.js';
import { hashAlgorithm } from './data-hash.js';

/**
 * The c2pa.hash.boxes check c2pa-rs makes on an embedded manifest (BoxHash::verify_stream_hash over the box map of
 * the format's handler: get_box_map in jpeg_io.rs, on jfifdump's segment reader, and png_io.rs; hash_stream_by_alg
 * with inclusions), made here for a manifest that is not in the file: see data-hash.ts for why. Ported to give
 * c2pa-rs 0.91's verdict, quirks included: boxes after the last one the assertion names are not hashed (data after
 * a JPEG's EOI or a PNG's IEND), a JPEG scan's length runs to the first marker that is not a restart, and a JPEG
 * without a C2PA segment gets a placeholder "C2PA" box after its first APP0 (or its SOI) that the assertion must name.
 *
 * JPEG and PNG only (c2pa-rs also has box maps for GIF, RIFF, TIFF and others: not judged here). The file is read in
 * place. A file c2pa-rs cannot map (a segment or chunk cut short, a marker it has no name for, a JPEG scan with no
 * end) is a mismatch, as c2pa-rs reports it; so is any other failure of its check (an empty exclusions list, which
 * c2pa-rs may report as assertion.boxesHash.malformed).
 *
 * Checked against c2pa-wasm on files with their store embedded (test/c2pa/box-hash.test.ts). c2pa-wasm verifies box
 * hashes of no other file, so two things follow the source as read, unconfirmed: the JPEG placeholder's place, and
 * that a PNG without a caBX chunk gets none.
 */

/** One entry of the assertion (c2pa-rs BoxMap): the boxes it covers, in file order, and their hash. */
export interface BoxHashEntry {
  names: string[];
  alg?: string | null;
  hash: CrJsonBytes;
  /** Not hashed (the C2PA box's placeholder, or another box the signer left out). */
  excluded?: boolean | null;
  /** Byte ranges inside the named boxes left out of the hash (boxIndex: which of `names`). */
  exclusions?: { start: number; length: number; boxIndex?: number | null }[] | null;
  pad: CrJsonBytes;
}

/** A c2pa.hash.boxes assertion as c2pa-rs's crJSON writes it. */
export interface BoxHashAssertion {
  boxes?: BoxHashEntry[];
}

export interface BoxHashOptions {
  /** The claim's alg, used for an entry that names none (as c2pa-rs does). */
  claimAlg?: string;
}

/** The file cannot be mapped as c2pa-rs maps it: its get_box_map fails, and the hash is reported mismatched. */
class Malformed extends Error {}

/** One box of the file as c2pa-rs's get_box_map lists it. */
interface SourceBox {
  name: string;
  start: number;
  length: number;
}

/** A box map as it is made, refused past BINDING_LIMITS.boxMapBoxes (before the file's boxes fill memory). */
class BoxMap {
  readonly list: SourceBox[] = [];

  push(box: SourceBox): void {
    if (this.list.length >= BINDING_LIMITS.boxMapBoxes) throw new BindingLimitExceeded('file', `the file has more than ${counted(BINDING_LIMITS.boxMapBoxes)} segments or chunks`);
    this.list.push(box);
  }
}

/** c2pa-rs's name for the C2PA manifest store's box in every format (C2PA_BOXHASH). */
const C2PA = 'C2PA';
const CHUNK = 1024 * 1024;
const SCAN_WINDOW = 64 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An assertion of the shape c2pa-rs would deserialize (a sidecar is anyone's bytes: nothing else is walked). */
function wellFormed(boxes: unknown): boxes is BoxHashEntry[] {
  return (
    Array.isArray(boxes) &&
    boxes.every(
      (e) =>
        isRecord(e) &&
        Array.isArray(e.names) &&
        e.names.every((n) => typeof n === 'string') &&
        bytesOf(e.hash) !== undefined &&
        bytesOf(e.pad) !== undefined &&
        optional(e.alg, (a) => typeof a === 'string') &&
        optional(e.excluded, (x) => typeof x === 'boolean') &&
        optional(e.exclusions, (x) => Array.isArray(x) && x.every((r) => isRecord(r) && isCount(r.start) && isCount(r.length) && optional(r.boxIndex, Number.isSafeInteger))),
    )
  );
}

// --- JPEG: jfifdump 0.6's segment reader and jpeg_io.rs's get_box_map. ---

/** jpeg_io.rs's segment names; a segment whose marker has none makes get_box_map fail. */
const JPEG_NAMES = new Map<number, string>([
  ...Array.from({ length: 16 }, (_, i) => [0xe0 + i, `APP${i}`] as const),
  ...Array.from({ length: 8 }, (_, i) => [0xd0 + i, `RST${i}`] as const),
  ...Array.from({ length: 14 }, (_, i) => [0xf0 + i, `JPG${i}`] as const),
  [0xfe, 'COM'], [0xc4, 'DHT'], [0xdb, 'DQT'], [0xdd, 'DRI'], [0xd9, 'EOI'], [0xc0, 'SOF0'], [0xc1, 'SOF1'], [0xc2, 'SOF2'], [0xd8, 'SOI'], [0xda, 'SOS'],
]);
const C2PA_JUMBF_TYPE = Buffer.from('c2pa', 'latin1');

/** The end of the file or a malformed segment: jfifdump's next_segment fails, which ends c2pa-rs's segment loop. */
class SegmentsEnd extends Error {}

/** A forward reader over the file, one window at a time (jfifdump reads through a BufReader). */
class Cursor {
  private window: Buffer = Buffer.alloc(0);
  private windowPos = 0;

  constructor(public pos: number) {}

  /** Where `pos` is in the window, read afresh from `pos` when it is outside; undefined at the end of the file. */
  private *windowIndex(): Walk<number | undefined> {
    const at = this.pos - this.windowPos;
    if (at >= 0 && at < this.window.length) return at;
    this.window = yield* readAt(this.pos, SCAN_WINDOW);
    this.windowPos = this.pos;
    return this.window.length === 0 ? undefined : 0;
  }

  /** The next byte, or undefined at the end of the file. */
  *byte(): Walk<number | undefined> {
    const at = yield* this.windowIndex();
    if (at === undefined) return undefined;
    this.pos += 1;
    return this.window[at];
  }

  /** Exactly `len` bytes, or SegmentsEnd (read_exact failing). */
  *bytes(len: number): Walk<Buffer> {
    const out = yield* readAt(this.pos, len);
    if (out.length !== len) throw new SegmentsEnd('the file ended inside a segment');
    this.pos += len;
    return out;
  }

  *u8(): Walk<number> {
    const b = yield* this.byte();
    if (b === undefined) throw new SegmentsEnd('the file ended inside a segment');
    return b;
  }

  /** jfifdump's read_length: the segment's length field less its own two bytes; 2 or less is an error. */
  *length(): Walk<number> {
    const length = (yield* this.bytes(2)).readUInt16BE(0);
    if (length <= 2) throw new SegmentsEnd('invalid marker length');
    return length - 2;
  }

  /** Moves past the next 0xFF; returns how many other bytes came before it, or undefined at the end of the file. */
  *toNextFF(): Walk<number | undefined> {
    let skipped = 0;
    for (;;) {
      const at = yield* this.windowIndex();
      if (at === undefined) return undefined;
      const ff = this.window.indexOf(0xff, at);
      if (ff >= 0) {
        this.pos = this.windowPos + ff + 1;
        return skipped + ff - at;
      }
      skipped += this.window.length - at;
      this.pos = this.windowPos + this.window.length;
    }
  }

  /** jfifdump's read_scan_data: entropy-coded bytes up to the first 0xFF not followed by 0x00 (or more 0xFF); returns that marker. */
  *scanData(): Walk<number> {
    for (;;) {
      if ((yield* this.toNextFF()) === undefined) throw new SegmentsEnd('the scan has no end');
      let next = yield* this.u8();
      while (next === 0xff) next = yield* this.u8();
      if (next !== 0x00) return next;
    }
  }
}

interface Segment {
  marker: number;
  /** Where c2pa-rs's box starts: the 0xFF before the marker byte. */
  start: number;
  /** APPn payload (after the length field). */
  data?: Buffer;
}

/** jfifdump's next_segment: the next segment, read whole; SegmentsEnd when there is none to read. */
function* nextSegment(c: Cursor, pending: { marker?: number }): Walk<Segment> {
  let marker = pending.marker;
  pending.marker = undefined;
  if (marker === undefined) {
    while ((yield* c.u8()) !== 0xff);
    marker = yield* c.u8();
    while (marker === 0xff) marker = yield* c.u8();
  }
  const start = c.pos - 2;
  const skip = function* (len: number): Walk<void> {
    // A negative remainder wraps (usize) into a skip that runs off the end of the file.
    if (len < 0) throw new SegmentsEnd('segment shorter than its fields');
    yield* c.bytes(len);
  };
  if (marker === 0x00) throw new SegmentsEnd('invalid marker 0x00');
  if (marker === 0xd8 || marker === 0xd9) return { marker, start };
  if (marker >= 0xe0 && marker <= 0xef) return { marker, start, data: yield* c.bytes(yield* c.length()) };
  if (marker === 0xdb || marker === 0xfe) {
    yield* skip(yield* c.length());
  } else if (marker === 0xc4) {
    let length = yield* c.length();
    while (length > 17) {
      const table = yield* c.bytes(17);
      let codes = 0;
      for (let i = 1; i < 17; i += 1) codes += table[i]!;
      yield* c.bytes(codes);
      length -= 17 + codes;
      if (length < 0) throw new SegmentsEnd('DHT tables longer than the segment');
    }
    yield* skip(length);
  } else if (marker === 0xcc) {
    yield* skip(2 * Math.floor((yield* c.length()) / 2)); // an odd last byte is left for the next marker search
  } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8) {
    const length = yield* c.length();
    const components = (yield* c.bytes(6))[5]!;
    yield* c.bytes(components * 3);
    yield* skip(length - 6 - components * 3);
  } else if (marker === 0xda) {
    const length = yield* c.length();
    const components = yield* c.u8();
    yield* c.bytes(components * 2 + 3);
    yield* skip(length - 1 - components * 2 - 3);
    pending.marker = yield* c.scanData();
  } else if (marker === 0xdd) {
    const length = yield* c.length();
    yield* c.bytes(2);
    yield* skip(length - 2);
  } else if (marker >= 0xd0 && marker <= 0xd7) {
    pending.marker = yield* c.scanData();
  } else {
    yield* skip(yield* c.length());
  }
  return { marker, start };
}

/** jpeg_io.rs's make_box_maps: the segments in file order (lengths filled in later), the C2PA store as one box. */
function* jpegSegments(): Walk<SourceBox[]> {
  const soi = yield* readAt(0, 2);
  if (soi.length !== 2 || soi[0] !== 0xff || soi[1] !== 0xd8) throw new Malformed('could not read JPEG segments');
  const c = new Cursor(2);
  const pending: { marker?: number } = { marker: 0xd8 };
  const boxes = new BoxMap();
  let caiEn: Buffer | undefined;
  let caiSegments = 0;
  let caiIndex = 0;
  for (;;) {
    let segment: Segment;
    try {
      segment = yield* nextSegment(c, pending);
    } catch (err) {
      if (err instanceof SegmentsEnd) break;
      throw err;
    }
    const { marker, start, data } = segment;
    if (marker === 0xeb && data) {
      if (data.length <= 16) continue; // too short to be C2PA: c2pa-rs lists no box for it
      const en = data.subarray(2, 4);
      if (caiSegments > 0 && caiEn?.equals(en)) {
        caiSegments += 1;
        boxes.list[caiIndex]!.length += data.length + 4;
        continue;
      }
      if (data.length < 28) throw new Malformed('Invalid JPEG CAI JUMBF block');
      if (data.subarray(24, 28).equals(C2PA_JUMBF_TYPE)) {
        caiSegments = 1;
        caiEn = Buffer.from(en);
        boxes.push({ name: C2PA, start, length: data.length + 4 });
        caiIndex = boxes.list.length - 1;
        continue;
      }
    }
    // jfifdump reads a JFIF APP0 as its own kind; c2pa-rs names it APP0 all the same.
    const name = marker === 0xcc ? 'DAC' : JPEG_NAMES.get(marker);
    if (name === undefined) throw new Malformed('Unknown segment marker');
    boxes.push({ name, start, length: 0 });
  }
  return boxes.list;
}

const hasLength = (marker: number) => (marker >= 0xe0 && marker <= 0xef) || (marker >= 0xc0 && marker <= 0xcf) || marker === 0xda || marker === 0xfe || marker === 0xdb || marker === 0xdd;

/** jpeg_io.rs's get_seg_size: 2 for a marker without a length field, else the field plus 2. */
function* segmentSize(pos: number): Walk<number> {
  const head = yield* readAt(pos, 4);
  if (head.length < 2 || head[0] !== 0xff) throw new Malformed('Cannot read segment marker');
  if (!hasLength(head[1]!)) return 2;
  if (head.length < 4) throw new Malformed('the file ended inside a segment');
  return head.readUInt16BE(2) + 2;
}

/** jpeg_io.rs's get_entropy_size: bytes up to the first 0xFF followed by neither 0x00 nor a restart marker. */
function* entropySize(pos: number): Walk<number> {
  const c = new Cursor(pos);
  let size = 0;
  for (;;) {
    const before = yield* c.toNextFF();
    const next = before === undefined ? undefined : yield* c.byte();
    if (before === undefined || next === undefined) throw new Malformed('the scan has no end');
    size += before;
    if (!(next === 0x00 || (next >= 0xd0 && next <= 0xd7))) return size;
    size += 2;
  }
}

/** jpeg_io.rs's get_box_map. */
function* jpegBoxMap(): Walk<SourceBox[]> {
  const boxes = yield* jpegSegments();
  if (!boxes.some((b) => b.name === C2PA)) {
    // No store in the file (a sidecar or remote manifest): c2pa-rs puts a placeholder where it would embed one.
    const app0 = boxes.findIndex((b) => b.name === 'APP0');
    const after = app0 >= 0 ? app0 : boxes.length > 1 ? 0 : -1;
    if (after < 0) throw new Malformed('JPEG file has no segments');
    const at = boxes[after]!.start + (yield* segmentSize(boxes[after]!.start));
    boxes.splice(after + 1, 0, { name: C2PA, start: at, length: 0 });
  }
  for (const box of boxes) {
    if (box.name === C2PA) continue;
    const size = yield* segmentSize(box.start);
    box.length = box.name === 'SOS' ? size + (yield* entropySize(box.start + size)) : size;
  }
  return boxes;
}

// --- PNG: png_io.rs's get_png_chunk_positions and get_box_map. ---

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function* pngBoxMap(size: number): Walk<SourceBox[]> {
  const signature = yield* readAt(0, 8);
  if (!signature.equals(PNG_SIGNATURE)) throw new Malformed('PNG invalid');
  const boxes = new BoxMap();
  boxes.push({ name: 'PNGh', start: 0, length: 8 });
  let pos = 8;
  for (;;) {
    const head = yield* readAt(pos, 8);
    if (head.length < 8) throw new Malformed('PNG out of range');
    const length = head.readUInt32BE(0);
    const end = pos + 8 + length + 4;
    if (end > size) throw new Malformed('PNG out of range'); // the CRC cannot be read
    let name: string;
    try {
      name = utf8.decode(head.subarray(4, 8));
    } catch {
      throw new Malformed('PNG bad chunk name');
    }
    boxes.push({ name: name === 'caBX' ? C2PA : name, start: pos, length: length + 12 });
    pos = end;
    if (name === 'IEND') break;
  }
  return boxes.list;
}

/** The box map of the file as c2pa-rs's handler for its format makes it; undefined for a format not ported here. */
async function boxMapOf(handle: FileHandle, size: number, mimeType: string): Promise<SourceBox[] | undefined> {
  if (mimeType === 'image/jpeg') return runOnFile(jpegBoxMap(), handle, size);
  if (mimeType === 'image/png') return runOnFile(pngBoxMap(size), handle, size);
  return undefined;
}

/** hash_stream_by_alg with one inclusion range, as BoxHash verification calls it; undefined when the range is not in the file. */
function* rangeDigest(size: number, alg: string, start: number, length: number): Walk<Buffer | undefined> {
  if (size < 1 || start + length > size) return undefined; // "no data to hash", "range exceed the data length"
  const hash = createHash(alg);
  for (let at = start; at < start + length; ) {
    const piece = yield* readAt(at, Math.min(CHUNK, start + length - at));
    if (piece.length === 0) return undefined;
    hash.update(piece);
    at += piece.length;
  }
  return hash.digest();
}

/**
 * BoxHash::verify_stream_hash over the box map: each entry's boxes, named in order, hashed from the first's start to
 * the last's end. Run over the file as one walk, so the many small boxes of a long map are read a window at a time.
 */
function* entriesMatch(entries: readonly BoxHashEntry[], source: readonly SourceBox[], size: number, claimAlg: string | undefined): Walk<boolean | undefined> {
  // A PNG's signature may be left out of the assertion.
  let next = source[0]!.name === 'PNGh' && entries[0]!.names.length > 0 && entries[0]!.names[0] !== 'PNGh' ? 1 : 0;
  for (const entry of entries) {
    let skipC2pa = false;
    let start = 0;
    let length = 0;
    for (const name of entry.names) {
      const box = source[next];
      if (!box || box.name !== name) return false; // assertion.boxesHash.unknownBox
      if (length === 0) {
        [start, length] = [box.start, box.length];
        if (name === C2PA) {
          if (entry.names.length !== 1) return false; // "Malformed C2PA box hash"
          skipC2pa = true;
        }
      } else {
        if (box.start < start) return false; // u64 underflow: a range past the end of the file
        length = box.start - start + box.length;
      }
      next += 1;
    }
    if (entry.exclusions && entry.exclusions.length === 0) return false; // assertion.boxesHash.malformed
    if (skipC2pa || entry.excluded === true) continue;
    if (entry.exclusions) return undefined;
    const algName = entry.alg ?? claimAlg;
    if (algName === undefined) return false; // "No algorithm specified"
    const alg = hashAlgorithm(algName);
    if (!alg) return undefined;
    const computed = yield* rangeDigest(size, alg, start, length);
    if (!computed?.equals(bytesOf(entry.hash)!)) return false;
  }
  return true;
}

/**
 * Whether the file hashes to the assertion's box hashes as c2pa-rs verifies them; undefined when this check cannot
 * judge it: a file of a format whose box map is not ported here (GIF, WebP, TIFF...), an assertion c2pa-rs would not
 * deserialize, an entry with an algorithm it does not know, or one with exclusions inside its boxes (checked by
 * c2pa-rs against ranges each format handler allows; no c2pa-rs writes them unless asked to). A file that is no
 * media format at all is a mismatch. Past BINDING_LIMITS (the entries, the file's boxes) it throws BindingLimitExceeded.
 */
export async function boxHashMatches(filePath: string, assertion: BoxHashAssertion, options: BoxHashOptions = {}): Promise<boolean | undefined> {
  const entries: unknown = assertion.boxes;
  if (Array.isArray(entries) && entries.length > BINDING_LIMITS.boxHashEntries) {
    throw new BindingLimitExceeded('assertion', `the manifest's box hash lists ${counted(entries.length)} entries, more than the ${counted(BINDING_LIMITS.boxHashEntries)} checked`);
  }
  if (!wellFormed(entries)) return undefined;
  if (entries.length === 0) return false; // "No box hash found"
  let mimeType: string;
  try {
    mimeType = (await identifyMedia(filePath, { checkStructure: false })).mimeType;
  } catch (err) {
    if (err instanceof MediaRejectedError) return false;
    throw err;
  }
  const handle = await open(filePath, 'r');
  try {
    const size = (await handle.stat()).size;
    let source: SourceBox[] | undefined;
    try {
      source = await boxMapOf(handle, size, mimeType);
    } catch (err) {
      if (err instanceof Malformed) return false;
      throw err;
    }
    if (!source) return undefined;
    if (source.length === 0) return false; // "No data boxes found"
    return await runOnFile(entriesMatch(entries, source, size, options.claimAlg), handle, size);
  } finally {
    await handle.close();
  }
}
