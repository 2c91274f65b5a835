import { open } from 'node:fs/promises';
import { readAt, runOnBytes, runOnFile, type Walk } from './byte-walk.js';
import { MediaRejectedError } from './errors.js';
import type { MediaFormat } from './format-descriptor.js';
import { avi } from './formats/avi.js';
import { pdf } from './formats/pdf.js';
import { epub } from './formats/epub.js';
import { docx } from './formats/docx.js';
import { xlsx } from './formats/xlsx.js';
import { pptx } from './formats/pptx.js';
import { odt } from './formats/odt.js';
import { ods } from './formats/ods.js';
import { odp } from './formats/odp.js';
import { odg } from './formats/odg.js';
import { avif } from './formats/avif.js';
import { dng } from './formats/dng.js';
import { flac } from './formats/flac.js';
import { gif } from './formats/gif.js';
import { heic } from './formats/heic.js';
import { heif } from './formats/heif.js';
import { jpeg } from './formats/jpeg.js';
import { jxl } from './formats/jxl.js';
import { m4a } from './formats/m4a.js';
import { m4v } from './formats/m4v.js';
import { mov } from './formats/mov.js';
import { mp3 } from './formats/mp3.js';
import { mp4 } from './formats/mp4.js';
import { png } from './formats/png.js';
import { svg } from './formats/svg.js';
import { tiff } from './formats/tiff.js';
import { wav } from './formats/wav.js';
import { webp } from './formats/webp.js';
import { id3BeforeOtherAudio } from './walks/audio.js';
import { isoMediaOfOtherBrand } from './walks/bmff.js';
import { riffOfOtherForm } from './walks/riff.js';
import { zipOfOtherForm } from './walks/zip-document.js';

export { MediaRejectedError } from './errors.js';
export type { MediaFormat } from './format-descriptor.js';

/**
 * The media formats this service signs and verifies: the registry, the one list of them. Each format is one
 * descriptor file in ./formats/ (format-descriptor.ts says what it holds); the API, the C2PA layer, the worker, the
 * OpenAPI document and the web app ask this module. In display order (messages, documents).
 *
 * Each is a format c2pa-rs 0.91 (our WASM build, @contentauth/c2pa-wasm 0.13) embeds a manifest into and reads back:
 * test/media/format-contract.test.ts runs every descriptor through the same checks, signing its sample and reading
 * it back Trusted, so this list cannot claim more than the library does. Files are recognised by content only
 * (identifyMedia), never by name or declared type.
 */
export const MEDIA_FORMATS = [jpeg, png, webp, gif, tiff, dng, avif, heic, heif, jxl, svg, mp4, m4v, mov, avi, m4a, mp3, wav, flac, pdf, epub, docx, xlsx, pptx, odt, ods, odp, odg] as const;

export type MediaMimeType = (typeof MEDIA_FORMATS)[number]['mimeType'];
export const MEDIA_MIME_TYPES = MEDIA_FORMATS.map((f) => f.mimeType) as readonly MediaMimeType[];
export type IdentifiedFormat = MediaFormat<MediaMimeType>;

const BY_MIME = new Map<string, IdentifiedFormat>(MEDIA_FORMATS.map((f) => [f.mimeType, f]));

export function isMediaMimeType(value: string): value is MediaMimeType {
  return BY_MIME.has(value);
}

/** The format of a MIME type of the registry; undefined for any other type. */
export function formatFor(mimeType: string): IdentifiedFormat | undefined {
  return BY_MIME.get(mimeType);
}

/** The extension (without dot) for stored files and signed files' download names. Throws for a type not in the registry. */
export function extensionFor(mimeType: string): string {
  const format = BY_MIME.get(mimeType);
  if (!format) throw new Error(`no media format for ${JSON.stringify(mimeType)}`);
  return format.extension;
}

/** "JPEG image" → "JPEG": the formats' short names, in messages. */
const shortName = (f: MediaFormat) => f.label.replace(/ (image|video|audio|raw image|document|e-book|workbook|presentation|text|spreadsheet|drawing)$/, '');
const LABELS = MEDIA_FORMATS.map(shortName).join(', ');
const unsupported = (message: string) => new MediaRejectedError('unsupported', message);

/** Container families the service reads some forms of: content of another form is named in the refusal. */
const OTHER_FORMS = [riffOfOtherForm, isoMediaOfOtherBrand, id3BeforeOtherAudio, zipOfOtherForm];

/** The descriptor whose sniff claims the content (the sniffs are exclusive, so the first that says yes). */
function* sniff(head: Buffer, size: number): Walk<IdentifiedFormat | undefined> {
  for (const format of MEDIA_FORMATS) if (yield* format.sniff(head, size)) return format;
  return undefined;
}

/** Why content no descriptor claims is refused: a look-alike a format names, another form of a family, or neither. */
function* refusal(head: Buffer, size: number): Walk<MediaRejectedError> {
  for (const format of MEDIA_FORMATS) {
    const reason = format.refuse && (yield* format.refuse(head, size));
    if (reason) return unsupported(reason);
  }
  for (const otherForm of OTHER_FORMS) {
    const reason = yield* otherForm(head, size);
    if (reason) return unsupported(`${reason}; accepted: ${LABELS}`);
  }
  return unsupported(`the file is not a supported format; accepted: ${LABELS}`);
}

/**
 * What the content is (each descriptor's sniff), and with `checkStructure` its structure walk. Rejections found once
 * the format is known are marked with it.
 */
function* identify(size: number, checkStructure: boolean): Walk<IdentifiedFormat> {
  if (size === 0) throw new MediaRejectedError('empty', 'the file is empty');
  const head = yield* readAt(0, 32);
  const format = yield* sniff(head, size);
  if (!format) throw yield* refusal(head, size);
  try {
    if (format.maxBytes !== undefined && size > format.maxBytes) {
      throw new MediaRejectedError('too_large', `${shortName(format)} files over ${format.maxBytes / 1024 / 1024} MiB are not accepted`);
    }
    if (format.bounds) yield* format.bounds(size);
    if (checkStructure) yield* format.check(size);
  } catch (err) {
    // A structure error names the format it was found in (its code tells a damaged image from other media).
    throw err instanceof MediaRejectedError && err.mimeType === undefined ? new MediaRejectedError(err.reason, err.message, format.mimeType) : err;
  }
  return format;
}

/**
 * Identifies a stored file by its content and (with `checkStructure`, the default) walks its structure; the name and
 * the declared type play no part. Reads the file in slices: a 1 GiB video costs a few box-header reads.
 * Verification skips the structure check (checkStructure false): a damaged file is exactly what c2pa-rs should judge.
 * A format's bounds (an ISO BMFF file's box count) apply either way.
 * Throws MediaRejectedError: `empty`, `unsupported` (415), `corrupt` (400), `too_large`, `too_complex` (422).
 */
export async function identifyMedia(filePath: string, options: { checkStructure?: boolean } = {}): Promise<IdentifiedFormat> {
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    return await runOnFile(identify(size, options.checkStructure ?? true), fh, size);
  } finally {
    await fh.close();
  }
}

/** identifyMedia for bytes in memory (synchronous). */
export function identifyMediaBytes(bytes: Uint8Array, options: { checkStructure?: boolean } = {}): IdentifiedFormat {
  return runOnBytes(identify(bytes.byteLength, options.checkStructure ?? true), bytes);
}
