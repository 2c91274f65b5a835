import { readAt, type Walk } from '../byte-walk.js';
import { corrupt, MediaRejectedError } from '../errors.js';

/**
 * ZIP containers (EPUB, Office Open XML, OpenDocument) read from their central directory and local headers only:
 * nothing is decompressed to identify or bound an archive, so a bomb costs its directory's size to refuse.
 */

/** Entries an archive may hold (422 media_too_complex past it). */
export const MAX_ZIP_ENTRIES = 10_000;
/** What an archive's entries may declare in all, uncompressed (413 past it): no document needs more. */
export const MAX_ZIP_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record is 22 bytes plus a comment of up to 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

export interface ZipEntryInfo {
  readonly name: string;
  /** The general purpose flags (bit 0 encrypted, bit 3 sizes in a data descriptor, bit 11 UTF-8 name). */
  readonly flags: number;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  /** The MS-DOS modification time and date, as written. */
  readonly dosTime: number;
  readonly dosDate: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localOffset: number;
}

export interface ZipDirectory {
  readonly entries: readonly ZipEntryInfo[];
  /** Where the central directory starts (the local entries all end before it). */
  readonly directoryOffset: number;
}

/** Whether the file starts as a ZIP archive does (a local file header). */
export const startsAsZip = (head: Buffer) => head.length >= 4 && head.readUInt32LE(0) === LOCAL;

/** The end of central directory record: its offset, entry count and directory range; undefined when there is none. */
function* endRecord(size: number): Walk<{ count: number; dirOffset: number; dirSize: number } | undefined> {
  const from = Math.max(0, size - EOCD_SEARCH);
  const tail = yield* readAt(from, size - from);
  for (let i = tail.length - 22; i >= 0; i -= 1) {
    if (tail.readUInt32LE(i) !== EOCD || i + 22 + tail.readUInt16LE(i + 20) !== tail.length) continue;
    return { count: tail.readUInt16LE(i + 10), dirSize: tail.readUInt32LE(i + 12), dirOffset: tail.readUInt32LE(i + 16) };
  }
  return undefined;
}

/**
 * The archive's central directory, its entry count checked against MAX_ZIP_ENTRIES before it is read. Throws
 * `corrupt` for a missing or damaged directory ("cut short?"), `too_complex` past the entry bound. ZIP64 archives
 * (counts or offsets saturated) are refused: no document of the sizes the service takes needs them.
 */
export function* readZipDirectory(size: number, what: string): Walk<ZipDirectory> {
  const end = yield* endRecord(size);
  if (!end) throw corrupt(`the ${what} has no ZIP end of central directory record (cut short?)`);
  if (end.count === 0xffff || end.dirOffset === 0xffffffff || end.dirSize === 0xffffffff) throw new MediaRejectedError('too_complex', `the ${what} is a ZIP64 archive, which the service does not read`);
  if (end.count > MAX_ZIP_ENTRIES) throw new MediaRejectedError('too_complex', `the ${what} has ${end.count} entries, more than the ${MAX_ZIP_ENTRIES.toLocaleString('en-US')} the service reads`);
  if (end.dirOffset + end.dirSize > size) throw corrupt(`the ${what}'s central directory lies past the end of the file (cut short?)`);
  const dir = yield* readAt(end.dirOffset, end.dirSize);
  const entries: ZipEntryInfo[] = [];
  let at = 0;
  for (let i = 0; i < end.count; i += 1) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== CENTRAL) throw corrupt(`the ${what}'s central directory is damaged at entry ${i + 1}`);
    const nameLength = dir.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
    if (next > dir.length) throw corrupt(`the ${what}'s central directory is damaged at entry ${i + 1}`);
    const entry = {
      name: dir.toString('utf8', at + 46, at + 46 + nameLength),
      flags: dir.readUInt16LE(at + 8),
      method: dir.readUInt16LE(at + 10),
      dosTime: dir.readUInt16LE(at + 12),
      dosDate: dir.readUInt16LE(at + 14),
      crc32: dir.readUInt32LE(at + 16),
      compressedSize: dir.readUInt32LE(at + 20),
      uncompressedSize: dir.readUInt32LE(at + 24),
      localOffset: dir.readUInt32LE(at + 42),
    };
    if (entry.compressedSize === 0xffffffff || entry.uncompressedSize === 0xffffffff || entry.localOffset === 0xffffffff) {
      throw new MediaRejectedError('too_complex', `the ${what} is a ZIP64 archive, which the service does not read`);
    }
    entries.push(entry);
    at = next;
  }
  return { entries, directoryOffset: end.dirOffset };
}

/** Why an entry's data cannot be read: encrypted (flag bit 0), or compressed by a method other than deflate. */
export function unreadableEntry(entry: ZipEntryInfo): string | undefined {
  if (entry.flags & 0x0001) return `entry ${JSON.stringify(entry.name.slice(0, 80))} is encrypted`;
  if (entry.method !== 0 && entry.method !== 8) return `entry ${JSON.stringify(entry.name.slice(0, 80))} is compressed with method ${entry.method} (only stored and deflated entries are read)`;
  return undefined;
}

/** Why an entry name is refused: absolute, a drive, backslashes, NUL or a `..` step could write outside the archive's folder. */
function unsafeName(name: string): string | undefined {
  if (name.length === 0) return 'an empty name';
  if (name.includes('\0')) return 'a NUL character';
  if (name.includes('\\')) return 'a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').includes('..')) return 'a ".." step';
  return undefined;
}

/**
 * The bounds a hostile archive breaks, checked from the headers alone before anything reads the entries: the entry
 * count (readZipDirectory), what the entries declare uncompressed in all (413), names escaping the archive (path
 * traversal), duplicate names, and entries whose bytes overlap one another or the directory (the quine and
 * overlapping-file bombs): 422 for the structure, 413 for the size.
 */
export function* assertZipBounds(size: number, what: string): Walk<ZipDirectory> {
  const directory = yield* readZipDirectory(size, what);
  const hostile = (why: string) => new MediaRejectedError('too_complex', `the ${what} ${why}; such archives are refused`);
  let total = 0;
  const names = new Set<string>();
  for (const entry of directory.entries) {
    total += entry.uncompressedSize;
    if (total > MAX_ZIP_UNCOMPRESSED_BYTES) {
      throw new MediaRejectedError('too_large', `the ${what}'s entries declare more than ${MAX_ZIP_UNCOMPRESSED_BYTES / 2 ** 20} MiB uncompressed (a ZIP bomb?); nothing was decompressed`);
    }
    const unsafe = unsafeName(entry.name);
    if (unsafe) throw hostile(`has an entry name with ${unsafe} (${JSON.stringify(entry.name.slice(0, 80))})`);
    if (names.has(entry.name)) throw hostile(`has two entries named ${JSON.stringify(entry.name.slice(0, 80))}`);
    names.add(entry.name);
  }
  // Each entry's bytes (local header, name, extra field, data) in the order they lie; none may reach into the next.
  const spans: { from: number; to: number; name: string }[] = [];
  for (const entry of directory.entries) {
    const local = yield* readAt(entry.localOffset, 30);
    if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw corrupt(`the ${what}'s entry ${JSON.stringify(entry.name.slice(0, 80))} has no local header where the directory says`);
    spans.push({ from: entry.localOffset, to: entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28) + entry.compressedSize, name: entry.name });
  }
  spans.sort((a, b) => a.from - b.from);
  for (let i = 0; i < spans.length; i += 1) {
    const span = spans[i]!;
    const limit = spans[i + 1]?.from ?? directory.directoryOffset;
    if (span.to > limit) throw hostile(`has entries whose bytes overlap (${JSON.stringify(span.name.slice(0, 80))})`);
  }
  return directory;
}

/** What kind of container the archive is, from its entries' names and (stored) `mimetype` / content types. */
export type ZipContainer =
  | { family: 'mimetype'; mimeType: string }
  | { family: 'ooxml'; mainPart: string }
  | { family: 'none' };

/** The leading local entries as they lie (a cut archive still has them): name, and the data when stored. */
function* leadingEntries(size: number, max: number): Walk<{ name: string; stored?: Buffer }[]> {
  const out: { name: string; stored?: Buffer }[] = [];
  let at = 0;
  while (out.length < max && at + 30 <= size) {
    const header = yield* readAt(at, 30);
    if (header.length < 30 || header.readUInt32LE(0) !== LOCAL) break;
    const nameLength = header.readUInt16LE(26);
    const extraLength = header.readUInt16LE(28);
    const compressed = header.readUInt32LE(18);
    // A size given only in a data descriptor after the data: the walk cannot go on from here.
    const sizeUnknown = (header.readUInt16LE(6) & 0x08) !== 0;
    const name = (yield* readAt(at + 30, nameLength)).toString('utf8');
    const dataAt = at + 30 + nameLength + extraLength;
    const small = header.readUInt16LE(8) === 0 && !sizeUnknown && compressed <= 64 * 1024;
    out.push(small ? { name, stored: yield* readAt(dataAt, compressed) } : { name });
    if (sizeUnknown) break;
    at = dataAt + compressed;
  }
  return out;
}

const OOXML_MAIN = /PartName="\/([^"]+)"\s+ContentType="application\/vnd\.(?:openxmlformats-officedocument|ms-[a-z]+)\.[a-z.]+\.main\+xml"/;

/**
 * Tells the container from its first entries: EPUB and OpenDocument begin with a stored `mimetype` entry naming
 * their type (both specifications require it first); Office Open XML has `[Content_Types].xml`, whose main part is
 * read when stored, or found among the entry names (the central directory's when there is one). Nothing is
 * decompressed.
 */
export function* zipContainer(head: Buffer, size: number, directoryNames: () => Walk<readonly string[] | undefined>): Walk<ZipContainer> {
  if (!startsAsZip(head)) return { family: 'none' };
  const leading = yield* leadingEntries(size, 8);
  const first = leading[0];
  if (first?.name === 'mimetype' && first.stored) return { family: 'mimetype', mimeType: first.stored.toString('latin1').trim() };
  const names = (yield* directoryNames()) ?? leading.map((e) => e.name);
  const contentTypes = leading.find((e) => e.name === '[Content_Types].xml');
  if (!contentTypes && !names.includes('[Content_Types].xml')) return { family: 'none' };
  const declared = contentTypes?.stored && OOXML_MAIN.exec(contentTypes.stored.toString('utf8'))?.[1];
  if (declared) return { family: 'ooxml', mainPart: declared };
  const known = names.find((n) => OOXML_MAIN_PARTS.includes(n));
  return known ? { family: 'ooxml', mainPart: known } : { family: 'none' };
}

/** The main parts Word, Excel and PowerPoint write. */
export const OOXML_MAIN_PARTS = ['word/document.xml', 'xl/workbook.xml', 'ppt/presentation.xml'];

/** The central directory's entry names, or undefined when it cannot be read (cut, damaged, hostile: bounds say why). */
export function* directoryNamesOf(size: number): Walk<readonly string[] | undefined> {
  try {
    return (yield* readZipDirectory(size, 'archive')).entries.map((e) => e.name);
  } catch (err) {
    if (err instanceof MediaRejectedError) return undefined;
    throw err;
  }
}
