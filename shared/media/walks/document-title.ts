import { readAt, type Walk } from '../byte-walk.js';
import { epubPackage, zipEntryText } from './zip-entry.js';

/**
 * A document's own title, from its metadata: PDF (the Info dictionary's /Title, else an XMP packet's dc:title), EPUB
 * (the package document's dc:title), Office Open XML (docProps/core.xml's dc:title) and OpenDocument (meta.xml's
 * dc:title). A sign request without a title takes it (shared/media/document-title.ts).
 *
 * The file is anyone's bytes: every read is bounded (a PDF's tail, one object, windows of its body; a ZIP entry of at
 * most 1 MiB inflated, with zlib's output cap: zip-entry.ts), nothing is parsed as a whole XML document (no entities,
 * no DTD), and a title is cleaned of control characters and cut to MAX_TITLE_CHARS. Anything unexpected gives
 * undefined, never an error: a title is a nicety, and the file name stands in.
 */

/** Longest title kept (the manifest's title limit, MANIFEST_LIMITS.title). */
const MAX_TITLE_CHARS = 256;
/** A PDF's end read for its trailer's /Info reference (trailers and cross-reference stream dictionaries are small). */
const PDF_TAIL_BYTES = 64 * 1024;
/** A PDF's body is searched for the Info object and an XMP packet in windows this large. */
const PDF_WINDOW_BYTES = 1024 * 1024;
/** At most this much of a PDF is searched (documents are at most MAX_UPLOAD_BYTES; this bounds any caller). */
const PDF_SEARCH_BYTES = 256 * 1024 * 1024;
/** How much of an object or an XMP element is read once found. */
const PDF_OBJECT_BYTES = 64 * 1024;

/** Control characters and line breaks become spaces, runs of space one, cut to MAX_TITLE_CHARS; empty is none. */
export function cleanTitle(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  // Unicode line/paragraph separators, C0/C1 controls and the replacement character of undecodable bytes.
  const text = raw.normalize('NFC').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  const chars = [...text];
  return chars.length <= MAX_TITLE_CHARS ? text : chars.slice(0, MAX_TITLE_CHARS).join('').trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text content: CDATA kept, markup inside dropped, the predefined and numeric character references decoded. */
function xmlText(inner: string): string {
  const parts = inner.split(/(<!\[CDATA\[[\s\S]*?\]\]>)/);
  return parts
    .map((part) => {
      if (part.startsWith('<![CDATA[')) return part.slice(9, -3);
      return part.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]+);/g, (whole, ref: string) => {
        if (ref.startsWith('#')) {
          const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
          return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
        }
        return ENTITIES[ref] ?? whole;
      });
    })
    .join('');
}

/** The first dc:title element's text in an XML document; for XMP's rdf:Alt, the x-default language's item (else the first). */
export function dcTitleOf(xml: string): string | undefined {
  const element = /<dc:title\b[^>]*?(?:\/>|>([\s\S]*?)<\/dc:title\s*>)/.exec(xml);
  const inner = element?.[1];
  if (inner === undefined) return undefined;
  if (!/<rdf:(?:Alt|Seq|Bag)\b/.test(inner)) return cleanTitle(xmlText(inner));
  const items = [...inner.matchAll(/<rdf:li\b([^>]*)>([\s\S]*?)<\/rdf:li\s*>/g)];
  const chosen = items.find((m) => /xml:lang\s*=\s*["']x-default["']/.test(m[1]!)) ?? items[0];
  return chosen ? cleanTitle(xmlText(chosen[2]!)) : undefined;
}

// --- PDF ---------------------------------------------------------------------------------------------------------

/** PDFDocEncoding's characters at 0x80-0x9f (the rest of its upper half is Latin-1). */
const PDF_DOC_HIGH = '\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203a\u2212\u2030\u201e\u201c\u201d\u2018\u2019\u201a\u2122\ufb01\ufb02\u0141\u0152\u0160\u0178\u017d\u0131\u0142\u0153\u0161\u017e\ufffd';

/** A PDF text string's bytes as text: UTF-16BE or UTF-8 with their byte order marks, else PDFDocEncoding. */
function pdfTextString(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const even = bytes.subarray(2, 2 + ((bytes.length - 2) & ~1));
    return Buffer.from(even).swap16().toString('utf16le');
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  let out = '';
  for (const b of bytes) out += b >= 0x80 && b <= 0x9f ? PDF_DOC_HIGH[b - 0x80]! : String.fromCharCode(b);
  return out;
}

const ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, b: 0x08, f: 0x0c, '(': 0x28, ')': 0x29, '\\': 0x5c };

/** The PDF string object starting at `at` (a literal `(...)` or a hex `<...>` string), or undefined. */
function pdfStringAt(text: string, at: number): string | undefined {
  if (text[at] === '<' && text[at + 1] !== '<') {
    const end = text.indexOf('>', at);
    if (end < 0) return undefined;
    const hex = text.slice(at + 1, end).replace(/\s+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex)) return undefined;
    return pdfTextString(Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex'));
  }
  if (text[at] !== '(') return undefined;
  const bytes: number[] = [];
  let depth = 1;
  for (let i = at + 1; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      if (next in ESCAPES) {
        bytes.push(ESCAPES[next]!);
        i += 1;
      } else if (/[0-7]/.test(next)) {
        const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))![0];
        bytes.push(Number.parseInt(octal, 8) & 0xff);
        i += octal.length;
      } else if (next === '\r' || next === '\n') {
        i += next === '\r' && text[i + 2] === '\n' ? 2 : 1; // a line continued
      } else {
        bytes.push(next.charCodeAt(0));
        i += 1;
      }
      continue;
    }
    if (c === '(') depth += 1;
    if (c === ')' && --depth === 0) return pdfTextString(Buffer.from(bytes));
    bytes.push(c.charCodeAt(0));
  }
  return undefined;
}

/** The /Title of a dictionary's text (an indirect /Title is not followed). */
function titleInDictionary(dictionary: string): string | undefined {
  const key = /\/Title\s*/.exec(dictionary);
  if (!key) return undefined;
  return cleanTitle(pdfStringAt(dictionary, key.index + key[0].length));
}

/**
 * Where `needle` last occurs in the file's first `limit` bytes, searched window by window (windows overlap by the
 * needle's length, so none is missed at a seam); `accept` can refuse a hit by the byte before it.
 */
function* lastOccurrence(size: number, needle: Buffer, accept: (before: number | undefined) => boolean): Walk<number | undefined> {
  const limit = Math.min(size, PDF_SEARCH_BYTES);
  let found: number | undefined;
  for (let from = 0; from < limit; from += PDF_WINDOW_BYTES) {
    const window = yield* readAt(from, Math.min(PDF_WINDOW_BYTES + needle.length, limit - from));
    for (let i = window.indexOf(needle); i >= 0; i = window.indexOf(needle, i + 1)) {
      const at = from + i;
      if (accept(i > 0 ? window[i - 1] : undefined)) found = at;
    }
    if (window.length < PDF_WINDOW_BYTES) break;
  }
  return found;
}

const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;

/**
 * A PDF's title: its Info dictionary's /Title (the object named by the last trailer's /Info, found where it last lies
 * in the file, the latest incremental update's), else the dc:title of its last uncompressed XMP packet. An encrypted
 * PDF's strings are ciphertext: it has none. An Info dictionary inside a compressed object stream is not read.
 */
export function* pdfTitle(size: number): Walk<string | undefined> {
  const tailFrom = Math.max(0, size - PDF_TAIL_BYTES);
  const tail = (yield* readAt(tailFrom, size - tailFrom)).toString('latin1');
  if (/\/Encrypt\b/.test(tail)) return undefined;
  const info = [...tail.matchAll(/\/Info\s+(\d{1,10})\s+(\d{1,5})\s+R\b/g)].at(-1);
  if (info) {
    const at = yield* lastOccurrence(size, Buffer.from(`${Number(info[1])} ${Number(info[2])} obj`, 'latin1'), (before) => !isDigit(before));
    if (at !== undefined) {
      const object = (yield* readAt(at, PDF_OBJECT_BYTES)).toString('latin1');
      const end = object.indexOf('endobj');
      const title = titleInDictionary(end < 0 ? object : object.slice(0, end));
      if (title) return title;
    }
  }
  const xmp = yield* lastOccurrence(size, Buffer.from('<dc:title', 'latin1'), () => true);
  if (xmp === undefined) return undefined;
  return dcTitleOf((yield* readAt(xmp, PDF_OBJECT_BYTES)).toString('utf8'));
}

// --- ZIP documents ------------------------------------------------------------------------------------------------

/** Where a ZIP document keeps its title: in a named entry, or (EPUB) in the package document container.xml names. */
export type ZipTitleSource = { entry: string } | 'epub-package';

/** A ZIP document's title: the dc:title of the entry that holds its metadata. */
export function* zipDocumentTitle(size: number, source: ZipTitleSource): Walk<string | undefined> {
  const xml = source === 'epub-package' ? (yield* epubPackage(size))?.xml : yield* zipEntryText(size, source.entry);
  return xml === undefined ? undefined : dcTitleOf(xml);
}
