import { open } from 'node:fs/promises';
import { ascii, readAt, runOnBytes, runOnFile, type Walk } from './byte-walk.js';
import { MediaRejectedError } from './errors.js';
import { checkFlac, checkMp3, looksLikeMp3, skipId3v2 } from './walks/audio.js';
import { checkBmff, checkJxl, formatOfBrands, isJxlCodestream, isJxlContainer, QUICKTIME_FIRST_ATOMS, readFtyp, type BmffFormat } from './walks/bmff.js';
import { checkGif } from './walks/gif.js';
import { checkJpeg, checkPng, PNG_SIGNATURE } from './walks/jpeg-png.js';
import { checkRiff, RIFF_FORMS, type RiffForm } from './walks/riff.js';
import { checkSvg, looksLikeSvg, SVG_MAX_BYTES } from './walks/svg.js';
import { checkTiff, sniffTiff, tiffHeader } from './walks/tiff.js';

export { MediaRejectedError, type MediaRejection } from './errors.js';

/**
 * The media formats this service signs and verifies: the one list the API, the C2PA layer and the worker use.
 *
 * Each is a format c2pa-rs 0.91 (our WASM build, @contentauth/c2pa-wasm 0.13) embeds a manifest into and reads back:
 * test/media/c2pa-support.test.ts signs a sample of every entry and reads it back Trusted, so this list cannot claim
 * more than the library does. Files are recognised by content only (identifyMedia), never by name or declared type.
 */
export type MediaKind = 'image' | 'video' | 'audio';

export interface MediaFormat {
  /** The MIME type given to c2pa-rs (and stored on uploads and signed files). */
  readonly mimeType: string;
  /** The extension (without dot) of stored files and of signed files' download names: extensionFor(). */
  readonly extension: string;
  /** Every customary extension, the main one first (file pickers' accept lists). */
  readonly extensions: readonly string[];
  readonly kind: MediaKind;
  /** Human name, e.g. "JPEG image". */
  readonly label: string;
  /** What the structure check verifies; limits. */
  readonly notes: string;
}

export const MEDIA_FORMATS = [
  { mimeType: 'image/jpeg', extension: 'jpg', extensions: ['jpg', 'jpeg'], kind: 'image', label: 'JPEG image', notes: 'marker segments up to the scan, a frame header, end-of-image marker' },
  { mimeType: 'image/png', extension: 'png', extensions: ['png'], kind: 'image', label: 'PNG image', notes: 'every chunk in bounds with its CRC, IHDR first, image data, IEND' },
  { mimeType: 'image/webp', extension: 'webp', extensions: ['webp'], kind: 'image', label: 'WebP image', notes: 'RIFF chunk walk, RIFF size matches the file, VP8/VP8L/VP8X first with a valid frame header' },
  { mimeType: 'image/gif', extension: 'gif', extensions: ['gif'], kind: 'image', label: 'GIF image', notes: 'header, logical screen, colour tables, every block up to the trailer at the end of the file' },
  { mimeType: 'image/tiff', extension: 'tif', extensions: ['tif', 'tiff'], kind: 'image', label: 'TIFF image', notes: 'byte order, IFD chain and entries in bounds, strips/tiles within the file; BigTIFF too' },
  { mimeType: 'image/x-adobe-dng', extension: 'dng', extensions: ['dng'], kind: 'image', label: 'DNG raw image', notes: 'a TIFF whose first IFD has DNGVersion; TIFF checks plus SubIFDs' },
  { mimeType: 'image/avif', extension: 'avif', extensions: ['avif'], kind: 'image', label: 'AVIF image', notes: 'ISO BMFF box walk over the whole file, ftyp brand avif/avis (or mif1 + avif), a meta box' },
  { mimeType: 'image/heic', extension: 'heic', extensions: ['heic'], kind: 'image', label: 'HEIC image', notes: 'ISO BMFF box walk, ftyp brand heic/heix/hevc/... (or mif1 + heic), a meta box' },
  { mimeType: 'image/heif', extension: 'heif', extensions: ['heif', 'hif'], kind: 'image', label: 'HEIF image', notes: 'ISO BMFF box walk, ftyp brand mif1/msf1 without AVIF or HEVC brands, a meta box' },
  { mimeType: 'image/jxl', extension: 'jxl', extensions: ['jxl'], kind: 'image', label: 'JPEG XL image', notes: 'container format only (a bare codestream cannot carry a manifest): signature box, ftyp "jxl ", boxes in bounds, jxlc/jxlp codestream' },
  { mimeType: 'image/svg+xml', extension: 'svg', extensions: ['svg'], kind: 'image', label: 'SVG image', notes: `UTF-8, at most ${SVG_MAX_BYTES / 1024 / 1024} MiB, root <svg>, tags balanced, no entity declarations` },
  { mimeType: 'video/mp4', extension: 'mp4', extensions: ['mp4'], kind: 'video', label: 'MP4 video', notes: 'ISO BMFF box walk (64-bit sizes, size 0 to the end), ftyp brand isom/mp41/mp42/avc1/..., a moov box' },
  { mimeType: 'video/x-m4v', extension: 'm4v', extensions: ['m4v'], kind: 'video', label: 'M4V video', notes: 'as MP4, ftyp brand M4V' },
  { mimeType: 'video/quicktime', extension: 'mov', extensions: ['mov', 'qt'], kind: 'video', label: 'QuickTime video', notes: 'ISO BMFF box walk, ftyp brand "qt  ", a moov box (old MOV without ftyp: refused, c2pa-rs cannot sign it)' },
  { mimeType: 'video/x-msvideo', extension: 'avi', extensions: ['avi'], kind: 'video', label: 'AVI video', notes: 'RIFF chunk walk, RIFF size matches the file (OpenDML AVIX chunks allowed), LIST hdrl with avih first, LIST movi' },
  { mimeType: 'audio/mp4', extension: 'm4a', extensions: ['m4a', 'm4b'], kind: 'audio', label: 'M4A audio', notes: 'ISO BMFF box walk, ftyp brand M4A/M4B, a moov box' },
  { mimeType: 'audio/mpeg', extension: 'mp3', extensions: ['mp3'], kind: 'audio', label: 'MP3 audio', notes: 'ID3v2 tags skipped by size, every Layer III frame header to the end (ID3v1/APE/Lyrics3 tags allowed), Xing/Info byte count' },
  { mimeType: 'audio/wav', extension: 'wav', extensions: ['wav', 'wave'], kind: 'audio', label: 'WAV audio', notes: 'RIFF chunk walk, RIFF size matches the file, "fmt " before "data"' },
  { mimeType: 'audio/flac', extension: 'flac', extensions: ['flac'], kind: 'audio', label: 'FLAC audio', notes: 'fLaC, metadata blocks with STREAMINFO first, first frame header CRC-8, last frame CRC-16 (finds a cut-off file)' },
] as const satisfies readonly MediaFormat[];

export type MediaMimeType = (typeof MEDIA_FORMATS)[number]['mimeType'];
export const MEDIA_MIME_TYPES = MEDIA_FORMATS.map((f) => f.mimeType) as readonly MediaMimeType[];

const BY_MIME = new Map<string, MediaFormat>(MEDIA_FORMATS.map((f) => [f.mimeType, f]));

export function isMediaMimeType(value: string): value is MediaMimeType {
  return BY_MIME.has(value);
}

/** The format of a MIME type of the registry; undefined for any other type. */
export function formatFor(mimeType: string): MediaFormat | undefined {
  return BY_MIME.get(mimeType);
}

/** The extension (without dot) for stored files and signed files' download names. Throws for a type not in the registry. */
export function extensionFor(mimeType: string): string {
  const format = BY_MIME.get(mimeType);
  if (!format) throw new Error(`no media format for ${JSON.stringify(mimeType)}`);
  return format.extension;
}

const format = (mimeType: MediaMimeType) => BY_MIME.get(mimeType)! as MediaFormat & { mimeType: MediaMimeType };

const BMFF_MIME: Record<BmffFormat, MediaMimeType> = {
  avif: 'image/avif', heic: 'image/heic', heif: 'image/heif', mp4: 'video/mp4', m4v: 'video/x-m4v', m4a: 'audio/mp4', mov: 'video/quicktime',
};
const RIFF_MIME: Record<RiffForm, MediaMimeType> = { WEBP: 'image/webp', WAVE: 'audio/wav', 'AVI ': 'video/x-msvideo' };

export type IdentifiedFormat = MediaFormat & { mimeType: MediaMimeType };

const LABELS = MEDIA_FORMATS.map((f) => f.label.replace(/ (image|video|audio|raw image)$/, '')).join(', ');
const unsupported = (message: string) => new MediaRejectedError('unsupported', message);

/**
 * What the content is (magic numbers, brands, a first look inside), and with `checkStructure` its structure walk.
 * Structure errors are marked with the format they were found in.
 */
function* identify(size: number, checkStructure: boolean): Walk<IdentifiedFormat> {
  if (size === 0) throw new MediaRejectedError('empty', 'the file is empty');
  const head = yield* readAt(0, 32);
  let found: MediaMimeType | undefined;
  let check: Walk<unknown> | undefined;
  const tiff = tiffHeader(head);
  const id = ascii(head, 0, 4);

  try {
    if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) {
      [found, check] = ['image/png', checkPng(size)];
    } else if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
      [found, check] = ['image/jpeg', checkJpeg(size)];
    } else if (id === 'GIF8' && /^GIF8[79]a/.test(ascii(head, 0, 6))) {
      [found, check] = ['image/gif', checkGif(size)];
    } else if (id === 'RIFF') {
      if (head.length < 12) throw new MediaRejectedError('corrupt', 'the RIFF file is truncated');
      const form = ascii(head, 8, 12);
      if (!(form in RIFF_FORMS)) throw unsupported(`RIFF files of form "${form.trim()}" are not supported; accepted: ${LABELS}`);
      [found, check] = [RIFF_MIME[form as RiffForm], checkRiff(size, form as RiffForm)];
    } else if (tiff) {
      const { dng } = yield* sniffTiff(size);
      found = dng ? 'image/x-adobe-dng' : 'image/tiff';
      check = checkTiff(size);
    } else if (isJxlContainer(head)) {
      [found, check] = ['image/jxl', checkJxl(size)];
    } else if (isJxlCodestream(head)) {
      throw unsupported('a bare JPEG XL codestream cannot carry Content Credentials; use the JPEG XL container format');
    } else if (ascii(head, 4, 8) === 'ftyp') {
      const ftyp = (yield* readFtyp(size))!;
      const bmff = formatOfBrands(ftyp.major, ftyp.compatible);
      if (typeof bmff !== 'string') throw unsupported(`ISO media files of brand "${bmff.unknown.trim()}" are not supported; accepted: ${LABELS}`);
      [found, check] = [BMFF_MIME[bmff], checkBmff(size, bmff)];
    } else if (head.length >= 8 && QUICKTIME_FIRST_ATOMS.has(ascii(head, 4, 8)) && (head.readUInt32BE(0) === 1 || head.readUInt32BE(0) >= 8)) {
      // An old QuickTime file: no ftyp, a first atom only QuickTime starts with. c2pa-rs 0.91 refuses these
      // (UnsupportedType; test/media/c2pa-support.test.ts keeps checking), so they are named and refused here.
      throw unsupported('a QuickTime file without a ftyp box (an old MOV) cannot carry Content Credentials; re-save it as a current MOV or MP4 (for example ffmpeg -i in.mov -c copy out.mov)');
    } else if (id === 'fLaC') {
      [found, check] = ['audio/flac', checkFlac(size)];
    } else if (ascii(head, 0, 3) === 'ID3') {
      // ID3v2 is a tag, not a format: what follows decides (MP3, or a FLAC signed by c2pa-rs).
      const audio = yield* skipId3v2(0, size);
      if (audio >= size) throw new MediaRejectedError('corrupt', 'the file holds an ID3 tag and no audio');
      if (ascii(yield* readAt(audio, 4), 0, 4) === 'fLaC') [found, check] = ['audio/flac', checkFlac(size)];
      else if (yield* looksLikeMp3(audio, size, 1)) [found, check] = ['audio/mpeg', checkMp3(size)];
      else throw unsupported(`the audio after the ID3 tag is not MP3 or FLAC; accepted: ${LABELS}`);
    } else if (yield* looksLikeMp3(0, size)) {
      [found, check] = ['audio/mpeg', checkMp3(size)];
    } else if (yield* looksLikeSvg(size)) {
      found = 'image/svg+xml';
      if (size > SVG_MAX_BYTES) throw new MediaRejectedError('too_large', `SVG files over ${SVG_MAX_BYTES / 1024 / 1024} MiB are not accepted`);
      check = checkSvg(size);
    } else {
      throw unsupported(`the file is not a supported format; accepted: ${LABELS}`);
    }
    if (checkStructure) yield* check;
  } catch (err) {
    if (err instanceof MediaRejectedError && found && err.mimeType === undefined) err.mimeType = found;
    throw err;
  }
  return format(found);
}

/**
 * Identifies a stored file by its content and (with `checkStructure`, the default) walks its structure; the name and
 * the declared type play no part. Reads the file in slices: a 1 GiB video costs a few box-header reads.
 * Verification skips the structure check (checkStructure false): a damaged file is exactly what c2pa-rs should judge.
 * Throws MediaRejectedError: `empty`, `unsupported` (415), `corrupt` (400), `too_large`.
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
