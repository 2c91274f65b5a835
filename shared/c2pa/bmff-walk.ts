import type { FileHandle } from 'node:fs/promises';
import { C2PA_RS_CONTAINERS, MAX_BMFF_DEPTH, maxBmffBoxes } from '../media/walks/bmff.js';
import { readAhead } from './file-handle-io.js';

/**
 * The box walk c2pa-rs makes of an ISO BMFF file (bmff_io.rs build_bmff_tree, with its tables of the boxes it descends
 * into and of FullBoxes), ported to list the same boxes under the same paths: the BMFF hash check (bmff-hash.ts) finds
 * its exclusions on it, and any other code that must see a file's boxes as c2pa-rs sees them can walk it here.
 *
 * The file is read in place, box headers only. A file c2pa-rs cannot walk (a box past its parent's or the file's end,
 * a header cut short, boxes nested too deep) throws BmffMalformed, where c2pa-rs's walk fails.
 */

/** The file cannot be walked as c2pa-rs walks it. */
export class BmffMalformed extends Error {}

/** The file has more boxes than the walk was allowed (`maxBoxes`): the walk stopped there. */
export class BmffTooManyBoxes extends Error {
  constructor(readonly limit: number) {
    super(`the file has more than ${limit.toLocaleString('en-US')} boxes`);
    this.name = 'BmffTooManyBoxes';
  }
}

/** The extended type of the C2PA manifest store's uuid box. */
export const C2PA_UUID = Buffer.from('d8fec3d61b0e483c92975828877ec481', 'hex');

/** ISO/IEC 14496-12:2022 FullBoxes (c2pa-rs FULL_BOX_TYPES): their version and flags follow the header. */
export const FULL_BOX_TYPES: ReadonlySet<string> = new Set([
  'pdin', 'mvhd', 'tkhd', 'mdhd', 'hdlr', 'nmhd', 'elng', 'stsd', 'stdp', 'stts', 'ctts', 'cslg', 'stss', 'stsh', 'elst', 'dref',
  'stsz', 'stz2', 'stsc', 'stco', 'co64', 'padb', 'subs', 'saiz', 'saio', 'mehd', 'trex', 'mfhd', 'tfhd', 'trun', 'tfra', 'mfro',
  'tfdt', 'leva', 'trep', 'assp', 'sbgp', 'sgpd', 'csgp', 'cprt', 'tsel', 'kind', 'meta', 'xml ', 'bxml', 'iloc', 'pitm', 'ipro',
  'infe', 'iinf', 'iref', 'ipma', 'schm', 'fiin', 'fpar', 'fecr', 'gitn', 'fire', 'stri', 'stsg', 'stvi', 'csch', 'sidx', 'ssix',
  'prft', 'srpp', 'vmhd', 'smhd', 'srat', 'chnl', 'dmix', 'txtC', 'mime', 'uri ', 'uriI', 'hmhd', 'sthd', 'vvhd', 'medc',
]);

/** The boxes c2pa-rs descends into; all others are leaves to it (the table is shared/media's, which counts boxes too). */
export const CONTAINERS = C2PA_RS_CONTAINERS;

/** One box as c2pa-rs lists it: where it starts, its whole size, and a FullBox's version and flags. */
export interface BmffBox {
  offset: number;
  size: number;
  version?: number;
  flags?: number;
}

/** Reads of at most this size are served from a window read ahead (one syscall for many box headers). */
const WINDOW = 64 * 1024;

/**
 * Positioned reads of an open file, small ones through a window read ahead: a walk over a file of 600,000 boxes makes
 * a few dozen reads, not 600,000. A returned buffer stays valid (each window is a new one).
 */
export class BmffFileReader {
  private window: Buffer = Buffer.alloc(0);
  private windowPos = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Exactly `length` bytes at `position`, or BmffMalformed (c2pa-rs's read_exact failing). */
  async exact(position: number, length: number): Promise<Buffer> {
    if (length === 0) return Buffer.alloc(0);
    if (position + length > this.size) throw new BmffMalformed('read past the end of the file');
    const at = position - this.windowPos;
    if (at >= 0 && at + length <= this.window.length) return this.window.subarray(at, at + length);
    if (length > WINDOW / 2) return this.read(position, length);
    this.window = await this.read(position, Math.min(WINDOW, this.size - position));
    this.windowPos = position;
    return this.window.subarray(0, length);
  }

  /**
   * The bytes in [from, to), in chunks read ahead (file-handle-io.ts readAhead): each valid only until the next is
   * asked for. Reading past the end of the file is BmffMalformed, as `exact`.
   */
  chunks(from: number, to: number): AsyncGenerator<Buffer> {
    if (to > this.size) throw new BmffMalformed('read past the end of the file');
    return readAhead(this.handle, from, to, { ended: () => new BmffMalformed('the file ended early') });
  }

  /** Up to `length` bytes at `position` (fewer at the end of the file). */
  async some(position: number, length: number): Promise<Buffer> {
    return this.exact(position, Math.max(0, Math.min(length, this.size - position)));
  }

  private async read(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(buffer, done, length - done, position + done);
      if (bytesRead === 0) throw new BmffMalformed('the file ended early');
      done += bytesRead;
    }
    return buffer;
  }
}

/** c2pa-rs's is_meta_full_box: a QuickTime meta has a child box header where an ISO one has its version and flags. */
async function isMetaFullBox(file: BmffFileReader, position: number, boxSize: number): Promise<boolean> {
  const peek = await file.some(position, 8);
  if (peek.length < 8) return true;
  const childSize = peek.readUInt32BE(0);
  const printable = [...peek.subarray(4, 8)].every((b) => b >= 0x20 && b <= 0x7e);
  return !(childSize > 0 && childSize <= boxSize && printable);
}

const decoder = new TextDecoder(); // lossy, as String::from_utf8_lossy

/** A box's type as c2pa-rs reads it (String::from_utf8_lossy of its four bytes). */
function boxType(header: Buffer): string {
  const ascii = header[4]! < 0x80 && header[5]! < 0x80 && header[6]! < 0x80 && header[7]! < 0x80;
  return ascii ? header.toString('latin1', 4, 8) : decoder.decode(header.subarray(4, 8));
}

/**
 * The boxes of the file by path ("/moov/trak"), in file order, as c2pa-rs's build_bmff_tree lists them: containers
 * it knows are walked, a size of 0 runs to the end of the file, 1 means a 64-bit size follows. Stops with
 * BmffTooManyBoxes past `maxBoxes` (all levels counted; default maxBmffBoxes of the file's size, what the service takes at all).
 */
export async function bmffBoxTree(file: BmffFileReader, { maxBoxes = maxBmffBoxes(file.size) }: { maxBoxes?: number } = {}): Promise<Map<string, BmffBox[]>> {
  const byPath = new Map<string, BmffBox[]>();
  let position = 0;
  let depth = 0;
  let count = 0;

  const add = (path: string, box: BmffBox) => {
    count += 1;
    if (count > maxBoxes) throw new BmffTooManyBoxes(maxBoxes);
    const list = byPath.get(path);
    if (list) list.push(box);
    else byPath.set(path, [box]);
  };
  const versionAndFlags = async (): Promise<{ version: number; flags: number }> => {
    const ext = await file.exact(position, 4);
    position += 4;
    return { version: ext[0]!, flags: ext.readUIntBE(1, 3) };
  };

  const level = async (end: number, parent: string): Promise<void> => {
    depth += 1;
    if (depth > MAX_BMFF_DEPTH) throw new BmffMalformed('boxes nested too deep');
    let current = position;
    while (current < end) {
      const start = position;
      const header = await file.exact(start, 8);
      const type = boxType(header);
      position = start + 8;
      let size = header.readUInt32BE(0);
      if (size === 1) {
        const large = (await file.exact(position, 8)).readBigUInt64BE(0);
        if (large > BigInt(Number.MAX_SAFE_INTEGER)) throw new BmffMalformed('box size out of range');
        size = Number(large);
        position += 8;
      } else if (size === 0) {
        size = file.size - start;
      }
      if (size === 0) break;
      if (current + size > end) throw new BmffMalformed('box extends beyond its container or the file');
      const path = `${parent}/${type}`;
      const box: BmffBox = { offset: start, size };
      if (type === 'uuid') {
        const extendedType = await file.exact(position, 16);
        position += 16;
        if (extendedType.equals(C2PA_UUID)) Object.assign(box, await versionAndFlags());
        add(path, box);
      } else if (CONTAINERS.has(type)) {
        const fullBox = type === 'meta' ? await isMetaFullBox(file, position, size) : FULL_BOX_TYPES.has(type);
        if (fullBox) Object.assign(box, await versionAndFlags());
        add(path, box);
        const childEnd = start + size;
        while (position < childEnd) await level(childEnd, path);
      } else {
        if (FULL_BOX_TYPES.has(type)) Object.assign(box, await versionAndFlags());
        add(path, box);
      }
      position = start + size;
      current = position;
    }
    depth -= 1;
  };

  await level(file.size, '');
  return byPath;
}
