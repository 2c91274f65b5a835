import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a ZIP written by writeZip: stored unless `deflate`; the header fields can be overridden to build hostile archives. */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
  deflate?: boolean;
  /** The uncompressed size written in the headers instead of the real one (a bomb's claim). */
  declaredSize?: number;
  /** The local header offset the central directory gives instead of the real one (overlapping entries). */
  localOffset?: number;
}

/**
 * A ZIP archive written by hand (local headers, data, central directory, end record), as EPUB, OOXML and ODF tools write
 * them; no ZIP64. Tests make documents and hostile archives with it instead of shipping binary fixtures.
 */
export function writeZip(entries: readonly ZipEntry[], options: { comment?: string; deflate?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
    // A `mimetype` entry stays stored, as EPUB and ODF require.
    const deflate = entry.deflate ?? (options.deflate === true && entry.name !== 'mimetype');
    const body = deflate ? deflateRawSync(raw) : raw;
    const name = Buffer.from(entry.name, 'utf8');
    const method = deflate ? 8 : 0;
    const crc = crc32(raw);
    const size = entry.declaredSize ?? raw.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(entry.localOffset ?? offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const comment = Buffer.from(options.comment ?? '', 'utf8');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...locals, directory, end, comment]);
}
