import { inflateRawSync } from 'node:zlib';
import { readAt, type Walk } from '../byte-walk.js';
import { readZipDirectory, unreadableEntry } from './zip.js';

/**
 * One entry of a ZIP document, read for what the service takes from inside it (a title, a cover image): looked up in
 * the central directory, its data inflated when deflated, never past `maxBytes` (zlib's output cap stops an entry
 * that inflates past what it declares). Undefined when absent, encrypted, of another method, declaring more than
 * `maxBytes`, or damaged: the callers treat what they take as optional.
 */
export function* zipEntryBytes(size: number, name: string, maxBytes: number): Walk<Buffer | undefined> {
  const { entries } = yield* readZipDirectory(size, 'document');
  const entry = entries.find((e) => e.name === name);
  if (!entry || unreadableEntry(entry) || entry.uncompressedSize > maxBytes || entry.compressedSize > maxBytes) return undefined;
  const local = yield* readAt(entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== 0x04034b50) return undefined;
  const data = yield* readAt(entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28), entry.compressedSize);
  if (data.length !== entry.compressedSize) return undefined;
  if (entry.method !== 8) return data;
  try {
    return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return undefined; // damaged, or inflating past the cap
  }
}

/** Metadata files (an EPUB's container.xml and package document, core.xml, meta.xml) are a few KiB; read at most this. */
const XML_ENTRY_BYTES = 1024 * 1024;

/** An XML entry as text (UTF-8), at most 1 MiB. */
export function* zipEntryText(size: number, name: string): Walk<string | undefined> {
  return (yield* zipEntryBytes(size, name, XML_ENTRY_BYTES))?.toString('utf8');
}

/** An EPUB's package document (OPF): its path in the archive (from META-INF/container.xml's first rootfile) and text. */
export function* epubPackage(size: number): Walk<{ path: string; xml: string } | undefined> {
  const container = yield* zipEntryText(size, 'META-INF/container.xml');
  const packagePath = container && /<rootfile\b[^>]*?\bfull-path\s*=\s*["']([^"']{1,1000})["']/.exec(container)?.[1];
  if (!packagePath) return undefined;
  const path = xmlAttribute(packagePath);
  const xml = yield* zipEntryText(size, path);
  return xml === undefined ? undefined : { path, xml };
}

/** An attribute value's predefined entities decoded (&amp; in a path). */
export function xmlAttribute(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);
}
