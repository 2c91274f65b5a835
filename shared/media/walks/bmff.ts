import { isFourCC, readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt, MediaRejectedError } from '../errors.js';

/**
 * Generic HEIF brands (ISO/IEC 23008-12 structure, no codec named): with one of them as the major brand, the
 * compatible brands say whether the images are AV1 (AVIF), HEVC (HEIC) or neither (HEIF).
 */
export const GENERIC_HEIF_BRANDS: ReadonlySet<string> = new Set(['mif1', 'msf1', 'mif2', 'miaf']);

/**
 * The most boxes an ISO BMFF file may have, all levels counted (as c2pa-rs walks them: every box in its containers).
 * c2pa-rs's own reading of a file grows with the square of its boxes (an embedded manifest followed by 10,000 boxes:
 * about 0.4 s on a quiet core, 20,000: 1.4 s, 100,000: about 35 s; bench/hostile/bindings.ts), so past this a file is
 * refused before c2pa-rs reads it. Camera, phone and editor files hold a few dozen to a few hundred; a fragmented MP4
 * about 4 to 11 per fragment (moof, mfhd, traf, tfhd, tfdt, trun, mdat).
 */
export const MAX_BMFF_BOXES = 10_000;
/**
 * Beyond MAX_BMFF_BOXES, one box more per this many bytes: a long fragmented recording (hours of 2 s fragments, tens of
 * thousands of boxes) is signed and read streamed, where only our linear walk sees its boxes, never c2pa-rs's whole read
 * (files up to MAX_UPLOAD_BYTES). A hostile file of tiny boxes still stops at MAX_BMFF_BOXES.
 */
const BYTES_PER_EXTRA_BOX = 64 * 1024;

/** The most boxes a BMFF file of `size` bytes may have: MAX_BMFF_BOXES up to 625 MiB, then one per 64 KiB. */
export const maxBmffBoxes = (size: number): number => Math.max(MAX_BMFF_BOXES, Math.floor(size / BYTES_PER_EXTRA_BOX));
/** The deepest boxes may be nested (c2pa-rs's walk, as ported in shared/c2pa/bmff-walk.ts, stops at 32). */
export const MAX_BMFF_DEPTH = 32;

/** The boxes c2pa-rs descends into (bmff_io.rs; shared/c2pa/bmff-walk.ts walks them as it does); all others are leaves to it. */
export const C2PA_RS_CONTAINERS: ReadonlySet<string> = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'moof', 'traf', 'edts', 'udta', 'dinf', 'tref', 'treg', 'mvex', 'mfra', 'meta', 'schi']);

/**
 * The file's boxes counted as c2pa-rs walks them (and the image property boxes the structure check walks), refused
 * past maxBmffBoxes(size) or MAX_BMFF_DEPTH (422 media_too_complex) before anything else reads them. Run whether or not
 * the structure is checked: it judges no damage (a box out of bounds ends its level's count; c2pa-rs or the structure
 * check tells what is wrong), only how much there is to walk. `name` names the format in messages.
 */
export function* assertBmffBoxesWithin(size: number, name: string): Walk<void> {
  let count = 0;
  const maxBoxes = maxBmffBoxes(size);
  const tooComplex = (why: string) => new MediaRejectedError('too_complex', `the ${name} file ${why}, more than the service reads`);
  function* level(start: number, end: number, depth: number): Walk<void> {
    if (depth > MAX_BMFF_DEPTH) throw tooComplex(`nests boxes more than ${MAX_BMFF_DEPTH} deep`);
    for (let pos = start; pos + 8 <= end; ) {
      const header = yield* readAt(pos, 16);
      if (header.length < 8) return;
      let size = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (size === 1) {
        if (header.length < 16) return;
        size = Number(header.readBigUInt64BE(8));
      } else if (size === 0) size = end - pos;
      if (size === 0 || pos + size > end) return;
      count += 1;
      if (count > maxBoxes) throw tooComplex(`has more than ${maxBoxes.toLocaleString('en-US')} boxes`);
      if (C2PA_RS_CONTAINERS.has(type) || type === 'iprp' || type === 'ipco') {
        const payload = pos + (header.readUInt32BE(0) === 1 ? 16 : 8);
        const peek = type === 'meta' ? yield* readAt(payload, 4) : undefined;
        const full = peek?.length === 4 && peek.readUInt32BE(0) === 0;
        yield* level(full ? payload + 4 : payload, pos + size, depth + 1);
      }
      pos += size;
    }
  }
  yield* level(0, size, 1);
}

/** The ftyp box at the start: its major and compatible brands; undefined when the file does not start with one. */
export function* readFtyp(size: number): Walk<{ major: string; compatible: string[]; end: number } | undefined> {
  const head = yield* readAt(0, 16);
  if (head.length < 8 || head.toString('latin1', 4, 8) !== 'ftyp') return undefined;
  const boxSize = head.readUInt32BE(0);
  if (boxSize < 16 || boxSize > 4096 || boxSize % 4 !== 0 || boxSize > size) throw corrupt('the ISO media file has a damaged ftyp box');
  const ftyp = yield* readExactly(0, boxSize, 'the ISO media file');
  const compatible: string[] = [];
  for (let at = 16; at < boxSize; at += 4) compatible.push(ftyp.toString('latin1', at, at + 4));
  return { major: ftyp.toString('latin1', 8, 12), compatible, end: boxSize };
}

/** Whether the file starts with a ftyp box whose brands pass `test` (a format's sniff). */
export function* hasBrands(size: number, test: (major: string, compatible: string[]) => boolean): Walk<boolean> {
  const ftyp = yield* readFtyp(size);
  return ftyp !== undefined && test(ftyp.major, ftyp.compatible);
}

/** ISO media of a brand no format of the registry claims (asked only then): a CR3 raw, 3GP, ... */
export function* isoMediaOfOtherBrand(_head: Buffer, size: number): Walk<string | undefined> {
  const ftyp = yield* readFtyp(size);
  return ftyp && `ISO media files of brand "${ftyp.major.trim()}" are not supported`;
}

interface Box {
  type: string;
  start: number;
  /** Where the payload starts (after the 8- or 16-byte header). */
  payload: number;
  end: number;
}

/**
 * The boxes between `start` and `end`, each with a printable type and a size in bounds: 32-bit size, 64-bit
 * largesize (size 1), or to the end of the enclosing range (size 0, only for the last box).
 */
export function* boxesIn(start: number, end: number, what: string, allowTrailingZeros = false): Walk<Box[]> {
  const boxes: Box[] = [];
  let pos = start;
  while (pos < end) {
    if (end - pos < 8) {
      if (allowTrailingZeros && (yield* readExactly(pos, end - pos, what)).every((b) => b === 0)) break;
      throw corrupt(`${what} is truncated: ${end - pos} stray bytes at byte ${pos}`);
    }
    const header = yield* readExactly(pos, 8, what);
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (!isFourCC(type)) {
      if (allowTrailingZeros && size === 0 && header.readUInt32BE(4) === 0) break; // QuickTime's 32-bit terminator
      throw corrupt(`${what} has a damaged box header at byte ${pos}`);
    }
    let headerSize = 8;
    if (size === 1) {
      const large = (yield* readExactly(pos + 8, 8, what)).readBigUInt64BE(0);
      if (large > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(`${what} has a box "${type}" of impossible size at byte ${pos}`);
      size = Number(large);
      headerSize = 16;
    } else if (size === 0) {
      size = end - pos; // to the end
    }
    if (size < headerSize) throw corrupt(`${what} has a damaged box "${type}" at byte ${pos}`);
    if (pos + size > end) throw corrupt(`${what} is truncated: box "${type}" at byte ${pos} claims ${size} bytes, only ${end - pos} remain`);
    boxes.push({ type, start: pos, payload: pos + headerSize, end: pos + size });
    pos += size;
  }
  return boxes;
}

/** Boxes whose children are boxes (after 4 bytes of version and flags for the full boxes marked true). */
const CONTAINERS: Record<string, boolean> = {
  moov: false, trak: false, mdia: false, minf: false, stbl: false, edts: false, dinf: false, mvex: false,
  moof: false, traf: false, mfra: false, iprp: false, ipco: false, meta: true,
};
const MAX_DEPTH = 8;

/** Walks into the containers, checking that their children fill them exactly. */
function* walkChildren(box: Box, what: string, depth: number): Walk<void> {
  const full = CONTAINERS[box.type];
  if (full === undefined || depth > MAX_DEPTH) return;
  let start = box.payload;
  if (full) {
    // ISO meta is a full box; QuickTime's meta is not: it starts straight with a child box (hdlr).
    const peek = yield* readExactly(start, Math.min(8, box.end - start), what);
    if (peek.length >= 4 && peek.readUInt32BE(0) === 0) start += 4;
  }
  for (const child of yield* boxesIn(start, box.end, `${what}'s ${box.type} box`, true)) yield* walkChildren(child, what, depth + 1);
}

/**
 * ISO BMFF: every top-level box in bounds up to the end of the file (ftyp first), and the boxes inside moov, meta and
 * their track/sample-table containers in bounds too. A movie (video, audio) needs a moov; still images
 * (AVIF/HEIF/HEIC) a meta box (or a moov, for image sequences). `name` names the format in messages.
 */
export function* checkBmff(size: number, name: string, holds: 'movie' | 'images'): Walk<void> {
  const what = `the ${name} file`;
  const boxes = yield* boxesIn(0, size, what);
  if (boxes[0]?.type !== 'ftyp') throw corrupt(`${what} does not start with a ftyp box`);
  if (boxes.filter((b) => b.type === 'ftyp').length > 1) throw corrupt(`${what} has more than one ftyp box`);
  const types = new Set(boxes.map((b) => b.type));
  if (holds === 'images' && !types.has('meta') && !types.has('moov')) throw corrupt(`${what} has no meta box (no image items)`);
  if (holds === 'movie' && !types.has('moov')) throw corrupt(`${what} has no moov box (no movie header)`);
  for (const box of boxes) yield* walkChildren(box, what, 1);
}

/** The playing time from the movie header (mvhd); undefined without one or when it says "unknown". */
export function* bmffDurationSeconds(size: number): Walk<number | undefined> {
  const moov = (yield* boxesIn(0, size, 'the file', true)).find((b) => b.type === 'moov');
  if (!moov) return undefined;
  const mvhd = (yield* boxesIn(moov.payload, moov.end, 'the moov box', true)).find((b) => b.type === 'mvhd');
  if (!mvhd) return undefined;
  const head = yield* readExactly(mvhd.payload, Math.min(32, mvhd.end - mvhd.payload), 'the mvhd box');
  const v1 = head[0] === 1;
  if (head.length < (v1 ? 32 : 20)) return undefined;
  const timescale = v1 ? head.readUInt32BE(20) : head.readUInt32BE(12);
  const duration = v1 ? Number(head.readBigUInt64BE(24)) : head.readUInt32BE(16);
  // All ones: "unknown" (e.g. a fragmented file whose fragments carry the time).
  if (timescale === 0 || duration === 0 || (!v1 && duration === 0xffffffff)) return undefined;
  return duration / timescale;
}

const JXL_SIGNATURE = Buffer.from('0000000c4a584c200d0a870a', 'hex');

export const isJxlContainer = (head: Buffer) => head.length >= 12 && head.subarray(0, 12).equals(JXL_SIGNATURE);
export const isJxlCodestream = (head: Buffer) => head.length >= 2 && head[0] === 0xff && head[1] === 0x0a;

/**
 * JPEG XL container (ISO/IEC 18181-2): the signature box, a ftyp of brand "jxl ", every box in bounds, and the
 * codestream in a jxlc box (or jxlp parts) starting with the codestream signature.
 */
export function* checkJxl(size: number): Walk<void> {
  const what = 'the JPEG XL file';
  const boxes = yield* boxesIn(0, size, what);
  if (boxes[1]?.type !== 'ftyp' || (yield* readExactly(boxes[1].payload, 4, what)).toString('latin1') !== 'jxl ') {
    throw corrupt(`${what} has no "jxl " ftyp box after its signature`);
  }
  const jxlc = boxes.find((b) => b.type === 'jxlc');
  const jxlp = boxes.find((b) => b.type === 'jxlp');
  if (!jxlc && !jxlp) throw corrupt(`${what} has no codestream (jxlc or jxlp box)`);
  const start = jxlc ? jxlc.payload : jxlp!.payload + 4;
  if (!isJxlCodestream(yield* readAt(start, 2))) throw corrupt(`${what} has a damaged codestream`);
}
