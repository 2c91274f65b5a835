import { isFourCC, readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

/** The ISO base media file formats this service signs, told apart by the ftyp brand. */
export type BmffFormat = 'avif' | 'heic' | 'heif' | 'mp4' | 'm4v' | 'm4a' | 'mov';

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
/** Generic HEIF brands: the compatible brands say whether the images are AV1 (AVIF) or HEVC (HEIC). */
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'mif2', 'miaf']);
const MP4_BRANDS = new Set(['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'mp71', 'avc1', 'av01', 'dash', 'mmp4', 'XAVC', 'MSNV']);
const M4V_BRANDS = new Set(['M4V ', 'M4VH', 'M4VP']);
const M4A_BRANDS = new Set(['M4A ', 'M4B ']);
/** Old QuickTime files have no ftyp: they start with one of these atoms (c2pa-rs 0.91 cannot sign them). */
export const QUICKTIME_FIRST_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** The format a ftyp box's brands name; `{ unknown: brand }` for ISO media of another kind (a CR3 raw, 3GP, ...). */
export function formatOfBrands(major: string, compatible: string[]): BmffFormat | { unknown: string } {
  if (AVIF_BRANDS.has(major)) return 'avif';
  if (HEIC_BRANDS.has(major)) return 'heic';
  if (HEIF_BRANDS.has(major)) {
    if (compatible.some((b) => AVIF_BRANDS.has(b))) return 'avif';
    if (compatible.some((b) => HEIC_BRANDS.has(b))) return 'heic';
    return 'heif';
  }
  if (major === 'qt  ') return 'mov';
  if (M4A_BRANDS.has(major)) return 'm4a';
  if (M4V_BRANDS.has(major)) return 'm4v';
  if (MP4_BRANDS.has(major)) return 'mp4';
  return { unknown: major };
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

const LABEL: Record<BmffFormat, string> = { avif: 'AVIF', heic: 'HEIC', heif: 'HEIF', mp4: 'MP4', m4v: 'M4V', m4a: 'M4A', mov: 'MOV' };

/**
 * ISO BMFF: every top-level box in bounds up to the end of the file (ftyp first), and
 * the boxes inside moov, meta and their track/sample-table containers in bounds too. Video and audio need a moov;
 * still images (AVIF/HEIF/HEIC) a meta box (or a moov, for image sequences).
 */
export function* checkBmff(size: number, format: BmffFormat): Walk<void> {
  const what = `the ${LABEL[format]} file`;
  const boxes = yield* boxesIn(0, size, what);
  if (boxes[0]?.type !== 'ftyp') throw corrupt(`${what} does not start with a ftyp box`);
  if (boxes.filter((b) => b.type === 'ftyp').length > 1) throw corrupt(`${what} has more than one ftyp box`);
  const types = new Set(boxes.map((b) => b.type));
  const still = format === 'avif' || format === 'heic' || format === 'heif';
  if (still && !types.has('meta') && !types.has('moov')) throw corrupt(`${what} has no meta box (no image items)`);
  if (!still && !types.has('moov')) throw corrupt(`${what} has no moov box (no movie header)`);
  for (const box of boxes) yield* walkChildren(box, what, 1);
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
