import { open, rm, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createInflateRaw, crc32 } from 'node:zlib';
import { runOnFile } from './byte-walk.js';
import { corrupt, MediaRejectedError } from './errors.js';
import { assertZipBounds, unreadableEntry, type ZipEntryInfo } from './walks/zip.js';

/**
 * c2pa-wasm 0.13.3 reads only stored ZIP entries ("compression method not supported: 8"), and office suites and EPUB
 * tools deflate nearly every entry. A container is therefore signed as a copy of itself whose entries are all stored:
 * same entries, same order (the `mimetype` entry first, as EPUB and ODF require), same names and dates, each entry's
 * data inflated and checked against its CRC-32. Extra fields and comments are not copied.
 */

const STORED = 0;
const DEFLATED = 8;
/** Bit 11: the name is UTF-8 (the only flag a stored copy keeps). */
const UTF8_NAME = 0x0800;
/** Written out in pieces of about this size. */
const WRITE_PIECE = 1024 * 1024;

const quoted = (name: string) => JSON.stringify(name.slice(0, 80));

/** Entries in the order they lie in the archive, the `mimetype` entry first. */
function inArchiveOrder(entries: readonly ZipEntryInfo[]): ZipEntryInfo[] {
  const ordered = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  const at = ordered.findIndex((e) => e.name === 'mimetype');
  if (at > 0) ordered.unshift(...ordered.splice(at, 1));
  return ordered;
}

/** Collects output into pieces of WRITE_PIECE and writes them in order, keeping count of the bytes written. */
class PieceWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  written = 0;
  constructor(private readonly handle: FileHandle) {}

  async push(chunk: Buffer): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= WRITE_PIECE) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const piece = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    for (let done = 0; done < piece.length; ) done += (await this.handle.write(piece, done, piece.length - done, this.written + done)).bytesWritten;
    this.written += piece.length;
  }

  /** Where the next byte pushed will land. */
  get position(): number {
    return this.written + this.pendingBytes;
  }
}

/** The bytes from `start` to `start + length`, read a piece at a time (the handle stays open: other entries follow). */
async function* rangeOf(handle: FileHandle, start: number, length: number): AsyncGenerator<Buffer> {
  for (let at = start, end = start + length; at < end; ) {
    const piece = Buffer.alloc(Math.min(WRITE_PIECE, end - at));
    const { bytesRead } = await handle.read(piece, 0, piece.length, at);
    if (bytesRead === 0) return;
    yield piece.subarray(0, bytesRead);
    at += bytesRead;
  }
}

/**
 * Streams one entry's data into `out`, inflated when deflated: never more than the entry declares uncompressed (an
 * entry whose data inflates past it is a bomb: refused as it happens), and its CRC-32 checked at the end.
 */
async function copyEntryData(source: FileHandle, dataAt: number, entry: ZipEntryInfo, out: PieceWriter, what: string): Promise<void> {
  let produced = 0;
  let crc = 0;
  const take = async (chunk: Buffer) => {
    produced += chunk.length;
    if (produced > entry.uncompressedSize) {
      throw new MediaRejectedError('too_complex', `the ${what}'s entry ${quoted(entry.name)} inflates past the ${entry.uncompressedSize} bytes it declares (a ZIP bomb?); such archives are refused`);
    }
    crc = crc32(chunk, crc);
    await out.push(chunk);
  };
  if (entry.compressedSize > 0) {
    const compressed = Readable.from(rangeOf(source, dataAt, entry.compressedSize));
    const data = entry.method === DEFLATED ? createInflateRaw({ chunkSize: 64 * 1024 }) : undefined;
    try {
      if (data) {
        compressed.on('error', (err) => data.destroy(err));
        compressed.pipe(data);
      }
      for await (const chunk of data ?? compressed) await take(chunk as Buffer);
    } catch (err) {
      if (err instanceof MediaRejectedError) throw err;
      if ((err as { code?: string }).code?.startsWith('Z_')) throw corrupt(`the ${what}'s entry ${quoted(entry.name)} is not valid deflate data (${(err as Error).message})`);
      throw err;
    } finally {
      compressed.destroy();
      data?.destroy();
    }
  }
  if (produced !== entry.uncompressedSize) throw corrupt(`the ${what}'s entry ${quoted(entry.name)} holds ${produced} bytes, not the ${entry.uncompressedSize} it declares (damaged?)`);
  if (crc >>> 0 !== entry.crc32 >>> 0) throw corrupt(`the ${what}'s entry ${quoted(entry.name)} does not match its CRC-32 (damaged?)`);
}

function localHeader(entry: ZipEntryInfo, name: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(10, 4);
  header.writeUInt16LE(entry.flags & UTF8_NAME, 6);
  header.writeUInt16LE(STORED, 8);
  header.writeUInt16LE(entry.dosTime, 10);
  header.writeUInt16LE(entry.dosDate, 12);
  header.writeUInt32LE(entry.crc32 >>> 0, 14);
  header.writeUInt32LE(entry.uncompressedSize, 18);
  header.writeUInt32LE(entry.uncompressedSize, 22);
  header.writeUInt16LE(name.length, 26);
  return header;
}

function centralHeader(entry: ZipEntryInfo, name: Buffer, offset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(10, 6);
  header.writeUInt16LE(entry.flags & UTF8_NAME, 8);
  header.writeUInt16LE(STORED, 10);
  header.writeUInt16LE(entry.dosTime, 12);
  header.writeUInt16LE(entry.dosDate, 14);
  header.writeUInt32LE(entry.crc32 >>> 0, 16);
  header.writeUInt32LE(entry.uncompressedSize, 20);
  header.writeUInt32LE(entry.uncompressedSize, 24);
  header.writeUInt16LE(name.length, 28);
  header.writeUInt32LE(offset, 42);
  return header;
}

function endRecord(count: number, directorySize: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return end;
}

/**
 * Writes to `outputPath` (a new file) a copy of the ZIP container at `sourcePath` with every entry stored, when it has
 * any deflated entry; returns false, writing nothing, when all are stored already. The archive is bounded first
 * (assertZipBounds: entry count, declared total, names, overlaps), so the copy is at most the declared 1 GiB plus
 * headers. Refusals are MediaRejectedErrors naming the entry (`what` names the format); nothing is left at
 * `outputPath` when it fails.
 */
export async function repackZipStored(sourcePath: string, outputPath: string, what: string): Promise<boolean> {
  const source = await open(sourcePath, 'r');
  let output: FileHandle | undefined;
  try {
    const size = (await source.stat()).size;
    const { entries } = await runOnFile(assertZipBounds(size, what), source, size);
    for (const entry of entries) {
      const why = unreadableEntry(entry);
      if (why) throw new MediaRejectedError('unsupported', `the ${what}'s ${why}`);
    }
    if (entries.every((e) => e.method === STORED)) return false;
    output = await open(outputPath, 'wx', 0o600);
    const out = new PieceWriter(output);
    const central: Buffer[] = [];
    for (const entry of inArchiveOrder(entries)) {
      const local = Buffer.alloc(30);
      await source.read(local, 0, 30, entry.localOffset);
      const dataAt = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const name = Buffer.from(entry.name, 'utf8');
      central.push(centralHeader(entry, name, out.position), name);
      await out.push(localHeader(entry, name));
      await out.push(name);
      await copyEntryData(source, dataAt, entry, out, what);
    }
    const directory = Buffer.concat(central);
    const directoryOffset = out.position;
    await out.push(directory);
    await out.push(endRecord(entries.length, directory.length, directoryOffset));
    await out.flush();
    await output.close();
    output = undefined;
    return true;
  } catch (err) {
    // Only a file this call made is removed.
    if (output) {
      await output.close().catch(() => undefined);
      await rm(outputPath, { force: true });
    }
    throw err;
  } finally {
    await source.close();
  }
}
