import type { Walk } from './byte-walk.js';

export type MediaKind = 'image' | 'video' | 'audio' | 'document';

/**
 * Everything the service knows about one media format, in one place: a descriptor file under shared/media/formats/,
 * listed in the registry (shared/media/formats.ts). Nothing else names a format; the rest of the service asks the
 * registry, or decides by `kind` (upload limits, thumbnails, soft bindings, schema.org types).
 */
export interface MediaFormatDescriptor<M extends string = string> {
  /** The MIME type given to c2pa-rs (its format name) and stored on uploads and signed files. */
  readonly mimeType: M;
  /** Every customary extension (without dot), the main one first: stored files' and download names' extension, file pickers' accept lists. */
  readonly extensions: readonly [string, ...string[]];
  readonly kind: MediaKind;
  /** Human name, e.g. "JPEG image". */
  readonly label: string;
  /** What the structure check verifies; limits. */
  readonly notes: string;
  /**
   * Whether the content is this format, from a first look (magic numbers, brands): `head` is the file's first 32
   * bytes (fewer for a shorter file). The registry's sniffs are exclusive: at most one says yes for any content.
   */
  sniff(head: Buffer, size: number): Walk<boolean>;
  /** The structure walk over the whole file (run once sniff said yes); throws `corrupt` rejections. */
  check(size: number): Walk<unknown>;
  /**
   * How much structure there is to walk, bounded (`too_complex` past it): run whether or not the structure is checked,
   * since every reader of the file (c2pa-rs, the detached binding checks) walks it too.
   */
  bounds?(size: number): Walk<void>;
  /** A size bound of the format's own (`too_large` above it, whether or not the structure is checked). */
  readonly maxBytes?: number;
  /**
   * How a file of any size is signed and read in bounded memory: 'bmff', an ISO BMFF file whose manifest and BMFF
   * hash the service writes and checks itself (shared/c2pa/bmff-sign.ts, bmff-read.ts); 'riff' (a `C2PA` chunk) and
   * 'id3' (a GEOB frame in the ID3v2 tag), a file bound by a c2pa.hash.data the service computes and checks itself
   * (shared/c2pa/data-hash-sign.ts, data-hash-read.ts). Without it, c2pa-wasm reads the whole file, which bounds its
   * size (maxBytes).
   */
  readonly streamed?: 'bmff' | 'riff' | 'id3';
  /**
   * 'zip', a ZIP container (EPUB, Office, OpenDocument): c2pa-wasm reads only stored entries, so a container with
   * deflated ones is signed as a copy whose entries are all stored (shared/media/zip-repack.ts).
   */
  readonly container?: 'zip';
  /** Look-alikes c2pa-rs cannot sign: the reason they are refused (415), or undefined. Asked when no sniff said yes. */
  refuse?(head: Buffer, size: number): Walk<string | undefined>;
  /** The playing time in seconds where the format's header says it; undefined when it does not. */
  durationSeconds?(size: number): Walk<number | undefined>;
  /** Documents: the title their own metadata gives (walks/document-title.ts); undefined when there is none. */
  title?(size: number): Walk<string | undefined>;
  /**
   * Documents: what their claim thumbnail is made of: 'first-page', the first page rendered by pdftoppm
   * (shared/media/pdf-page.ts), or `cover`, an image the walk reads out of the file (an EPUB's cover). None without it.
   */
  readonly picture?: 'first-page' | { cover(size: number): Walk<Buffer | undefined> };
  /**
   * Images whose pixel data sharp's libvips decodes here in every variant: the upload decodes them to find missing
   * or truncated pixel data (image-pixels.ts).
   */
  readonly pixelDataChecked?: boolean;
}

/** A descriptor as the registry holds it: with `extension`, the main one. */
export type MediaFormat<M extends string = string> = MediaFormatDescriptor<M> & {
  /** The extension (without dot) of stored files and of signed files' download names: extensionFor(). */
  readonly extension: string;
};

/** Declares a format (keeping its MIME type's literal type, from which the registry's MediaMimeType is made). */
export function defineFormat<const M extends string>(descriptor: MediaFormatDescriptor<M>): MediaFormat<M> {
  return { ...descriptor, extension: descriptor.extensions[0] };
}
