import { open } from 'node:fs/promises';
import { ServiceError } from '../errors.js';
import { bmffBoxTree, BmffFileReader, BmffMalformed, C2PA_UUID, type BmffBox } from './bmff-walk.js';

/**
 * The top level of an ISO BMFF file as c2pa-rs sees it when it embeds or reads a manifest (bmff_io.rs: write_cai,
 * c2pa_boxes_from_tree_and_map, read_xmp): its boxes in file order, the ftyp box the manifest goes after, the C2PA
 * `uuid` box holding the manifest store (purpose "manifest"), and the XMP `uuid` box. Only box headers and these small
 * boxes are read, never the media.
 */

/** The extended type of the XMP `uuid` box (Adobe XMP Specification Part 3, as c2pa-rs reads it). */
const XMP_UUID = Buffer.from('be7acfcb97a942e89c71999491e3afac', 'hex');

/**
 * The largest C2PA or XMP box read into memory (a stand-in for c2pa-rs, a manifest store to verify). A store holds
 * claims, signatures, thumbnails and the manifests of ingredients; XMP a few kilobytes to a few megabytes of history.
 */
export const MAX_SMALL_BOX_BYTES = 64 * 1024 * 1024;

/** A box at the top level of the file, as c2pa-rs's walk lists it. */
export interface TopLevelBox {
  type: string;
  offset: number;
  /** The whole box, header included (a size of 0 in the file: to its end). */
  size: number;
  /** 8, or 16 for a 64-bit size. */
  headerSize: number;
  /** The bytes 8 to 24 of the box (a `uuid` box's extended type under an 8-byte header), as c2pa-rs's exclusion data reads them. */
  at8: Buffer;
}

/** A C2PA `uuid` box: its purpose ("manifest", "merkle", "original", "update") and where its payload is. */
export interface C2paBox extends TopLevelBox {
  purpose: string;
  /** Where the manifest store starts (after the purpose and, for a manifest, the 8-byte offset of the first auxiliary box). */
  storeOffset: number;
}

/** The top level of a walked file: its boxes and its C2PA and XMP boxes. */
export interface BmffBoxes {
  size: number;
  boxes: TopLevelBox[];
  /** The first ftyp box (c2pa-rs puts its manifest right after it); a media segment of a fragmented MP4 has none. */
  ftyp?: TopLevelBox;
  /** The C2PA box holding the manifest store, when the file has one. */
  manifestBox?: C2paBox;
  /** Every C2PA box (a manifest, or a fragmented file's Merkle boxes). */
  c2paBoxes: C2paBox[];
  /** The XMP box c2pa-rs reads (the last one at the top level). */
  xmpBox?: TopLevelBox;
  /** The boxes of the whole file by path ("/moov/trak"), as bmff-walk.ts lists them. */
  tree: Map<string, BmffBox[]>;
}

/** The top level of a file c2pa-rs can embed a manifest in: one with an ftyp box. */
export interface BmffTopLevel extends BmffBoxes {
  ftyp: TopLevelBox;
}

/** The file cannot be signed the way c2pa-rs would sign it; the reason is for the file's owner. Final: no retry helps. */
export class BmffUnsignableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unprocessable', 'bmff_unsignable', message, { ...options, publicMessage: `the file could not be signed: ${message}` });
    this.name = 'BmffUnsignableError';
  }
}

/** The NUL-terminated purpose of a C2PA box, read from `at` (after version and flags). */
async function purposeAt(file: BmffFileReader, at: number, end: number): Promise<{ purpose: string; next: number }> {
  const bytes = await file.some(at, Math.min(64, end - at));
  const nul = bytes.indexOf(0);
  if (nul < 0) throw new BmffUnsignableError('a C2PA box has no purpose');
  return { purpose: bytes.toString('latin1', 0, nul), next: at + nul + 1 };
}

/** Lists the top level of the walked file and reads the headers of its C2PA boxes. */
export async function bmffBoxesOf(file: BmffFileReader, tree: Map<string, BmffBox[]>): Promise<BmffBoxes> {
  const boxes: TopLevelBox[] = [];
  for (const [path, found] of tree) {
    if (path.lastIndexOf('/') !== 0) continue;
    for (const { offset, size } of found) {
      const head = await file.some(offset, 24);
      const headerSize = head.readUInt32BE(0) === 1 ? 16 : 8;
      boxes.push({ type: path.slice(1), offset, size, headerSize, at8: head.subarray(8, 24) });
    }
  }
  boxes.sort((a, b) => a.offset - b.offset);
  const ftyp = boxes.find((b) => b.type === 'ftyp');
  const c2paBoxes: C2paBox[] = [];
  let xmpBox: TopLevelBox | undefined;
  for (const box of boxes) {
    if (box.type !== 'uuid') continue;
    const extendedType = (await file.exact(box.offset + box.headerSize, 16));
    if (extendedType.equals(XMP_UUID)) xmpBox = box;
    if (!extendedType.equals(C2PA_UUID)) continue;
    const end = box.offset + box.size;
    const { purpose, next } = await purposeAt(file, box.offset + box.headerSize + 16 + 4, end);
    const storeOffset = purpose === 'merkle' ? next : next + 8;
    if (storeOffset > end) throw new BmffUnsignableError('a C2PA box is cut short');
    c2paBoxes.push({ ...box, purpose, storeOffset });
  }
  const stores = c2paBoxes.filter((b) => b.purpose !== 'merkle');
  if (stores.some((b) => b.purpose === 'original' || b.purpose === 'update')) {
    throw new BmffUnsignableError('the file carries a C2PA update manifest; signing over one is not supported');
  }
  if (stores.length > 1) throw new BmffUnsignableError('the file carries more than one C2PA manifest store');
  return { size: file.size, boxes, ftyp, manifestBox: stores[0], c2paBoxes, xmpBox, tree };
}

/** bmffBoxesOf for a file c2pa-rs can embed a manifest in (refused without an ftyp box). */
export async function bmffTopLevel(file: BmffFileReader, tree: Map<string, BmffBox[]>): Promise<BmffTopLevel> {
  const top = await bmffBoxesOf(file, tree);
  const { ftyp } = top;
  if (!ftyp) throw new BmffUnsignableError('the file has no ftyp box');
  return { ...top, ftyp };
}

/** Reads a small box whole (at most MAX_SMALL_BOX_BYTES). */
export async function readSmallBox(file: BmffFileReader, box: Pick<TopLevelBox, 'offset' | 'size'>, what: string): Promise<Buffer> {
  if (box.size > MAX_SMALL_BOX_BYTES) throw new BmffUnsignableError(`its ${what} is ${box.size} bytes, over the ${MAX_SMALL_BOX_BYTES} this service reads`);
  return file.exact(box.offset, box.size);
}

/** The manifest store of the file's C2PA box (JUMBF, application/c2pa). */
export async function manifestStoreOf(file: BmffFileReader, box: C2paBox): Promise<Buffer> {
  return readSmallBox(file, { offset: box.storeOffset, size: box.offset + box.size - box.storeOffset }, 'C2PA manifest store');
}

/**
 * What c2pa-rs is shown in place of the file when the service signs or reads it streamed: the boxes it reads of a
 * file besides its media, in file order: the ftyp box, the XMP box (c2pa-rs takes the claim's instanceID from its
 * xmpMM:InstanceID, and an ingredient's instance and document IDs) and, with `manifest`, the C2PA box.
 */
export async function standInOf(file: BmffFileReader, top: BmffTopLevel, options: { manifest: boolean }): Promise<Uint8Array> {
  const boxes = [top.ftyp, top.xmpBox, options.manifest ? top.manifestBox : undefined].filter((b) => b !== undefined).sort((a, b) => a.offset - b.offset);
  const parts = [];
  for (const box of boxes) parts.push(await readSmallBox(file, box, box === top.ftyp ? 'ftyp box' : box === top.xmpBox ? 'XMP box' : 'C2PA box'));
  return new Uint8Array(Buffer.concat(parts));
}

/** Opens and walks a BMFF file as c2pa-rs does, lists its top level with `list`, and hands both to `use`. */
async function withWalkedFile<B, T>(filePath: string, list: (file: BmffFileReader, tree: Map<string, BmffBox[]>) => Promise<B>, use: (file: BmffFileReader, top: B) => Promise<T>): Promise<T> {
  const handle = await open(filePath, 'r');
  try {
    const file = new BmffFileReader(handle, (await handle.stat()).size);
    try {
      return await use(file, await list(file, await bmffBoxTree(file)));
    } catch (err) {
      // A walk that stops at its bound on boxes (BmffTooManyBoxes) refuses the file the same way.
      if (err instanceof BmffMalformed || (err as Error).name === 'BmffTooManyBoxes') throw new BmffUnsignableError(`its boxes cannot be walked as c2pa-rs walks them (${(err as Error).message})`, { cause: err });
      throw err;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Opens and walks a BMFF file as c2pa-rs does; `use` gets the reader and the top level. A file c2pa-rs cannot walk (now
 * or while `use` reads it) is BmffUnsignableError.
 */
export async function withBmffFile<T>(filePath: string, use: (file: BmffFileReader, top: BmffTopLevel) => Promise<T>): Promise<T> {
  return withWalkedFile(filePath, bmffTopLevel, use);
}

/** withBmffFile for any BMFF file, with or without an ftyp box (a fragmented MP4's media segment has none). */
export async function withBmffBoxes<T>(filePath: string, use: (file: BmffFileReader, top: BmffBoxes) => Promise<T>): Promise<T> {
  return withWalkedFile(filePath, bmffBoxesOf, use);
}
