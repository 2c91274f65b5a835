import type { Walk } from '../byte-walk.js';
import { MediaRejectedError } from '../errors.js';
import { defineFormat, type MediaFormat } from '../format-descriptor.js';
import { zipDocumentTitle, type ZipTitleSource } from './document-title.js';
import { assertZipBounds, unreadableEntry, directoryNamesOf, startsAsZip, MAX_ZIP_ENTRIES, MAX_ZIP_UNCOMPRESSED_BYTES, zipContainer, type ZipContainer } from './zip.js';

/** What tells one ZIP document format from the others: its `mimetype` entry's text, or its Office Open XML main part. */
type Marker = { mimetype: string } | { mainPart: string };

const matches = (container: ZipContainer, marker: Marker) =>
  'mimetype' in marker ? container.family === 'mimetype' && container.mimeType === marker.mimetype : container.family === 'ooxml' && container.mainPart === marker.mainPart;

export function* zipContainerOf(head: Buffer, size: number): Walk<ZipContainer> {
  return yield* zipContainer(head, size, () => directoryNamesOf(size));
}

/**
 * A document format carried in a ZIP container (EPUB, Office Open XML, OpenDocument): c2pa-rs 0.91 signs it with a
 * `c2pa.hash.collection.data` binding over the entries and puts the manifest at `META-INF/content_credential.c2pa`.
 * Recognised by its marker; its archive bounded (zip.ts) before anything reads the entries; its structure check is
 * the archive's directory and the entries the format requires.
 */
export function defineZipDocument<const M extends string>(spec: { mimeType: M; extensions: readonly [string, ...string[]]; label: string; marker: Marker; required: readonly string[]; title: ZipTitleSource; cover?: (size: number) => Walk<Buffer | undefined> }): MediaFormat<M> {
  const what = spec.label;
  const markerNote = 'mimetype' in spec.marker ? `a stored mimetype entry "${spec.marker.mimetype}"` : `[Content_Types].xml with main part ${spec.marker.mainPart}`;
  return defineFormat({
    mimeType: spec.mimeType,
    extensions: spec.extensions,
    kind: 'document',
    container: 'zip',
    label: spec.label,
    notes: `ZIP container: ${markerNote}; ${spec.required.join(', ')}; at most ${MAX_ZIP_ENTRIES.toLocaleString('en-US')} entries and ${MAX_ZIP_UNCOMPRESSED_BYTES / 2 ** 30} GiB uncompressed, no path traversal, duplicate names or overlapping entries (read from the central directory, nothing decompressed); stored and deflated entries, none encrypted`,
    *sniff(head, size) {
      return matches(yield* zipContainerOf(head, size), spec.marker);
    },
    title: (size) => zipDocumentTitle(size, spec.title),
    ...(spec.cover ? { picture: { cover: spec.cover } } : {}),
    *bounds(size) {
      yield* assertZipBounds(size, what);
    },
    *check(size) {
      const directory = yield* assertZipBounds(size, what);
      const names = new Set(directory.entries.map((e) => e.name));
      const missing = spec.required.filter((n) => !names.has(n));
      if (missing.length > 0) throw new MediaRejectedError('corrupt', `the ${what} has no ${missing.join(', ')}`);
      for (const entry of directory.entries) {
        const why = unreadableEntry(entry);
        if (why) throw new MediaRejectedError('unsupported', `the ${what}'s ${why}`);
      }
    },
  });
}

/** A ZIP archive none of the document formats claims: why it is refused (plain ZIP, or a container of another type). */
export function* zipOfOtherForm(head: Buffer, size: number): Walk<string | undefined> {
  const container = yield* zipContainerOf(head, size);
  if (!startsAsZip(head)) return undefined;
  if (container.family === 'mimetype') return `a ZIP container of type ${JSON.stringify(container.mimeType.slice(0, 80))} cannot be signed here`;
  if (container.family === 'ooxml') return `an Office Open XML package whose main part is ${container.mainPart} cannot be signed here`;
  return 'a plain ZIP archive cannot carry Content Credentials (only EPUB, Office and OpenDocument files, which say what they are, can)';
}
