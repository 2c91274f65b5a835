import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { OpensslChain } from '../support/openssl-chain.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { identifyMedia, MediaRejectedError, type MediaMimeType } from '../../shared/media/formats.js';
import { parseFrameHeader } from '../../shared/media/walks/audio.js';
import { tinyDocx, tinyEpub, tinyOdf, tinyPdf, tinyPptx, tinyXlsx } from './document-samples.js';

const run = promisify(execFile);

/**
 * A small sample of every format of the registry (and, below, a damaged copy of each), made when the tests run (no binary fixtures): sharp for WebP, GIF,
 * TIFF and AVIF; ffmpeg's lavfi sources for video and audio (and the JPEG XL codestream); by hand for DNG, SVG, the
 * JPEG XL container, and HEIC / HEIF.
 *
 * HEIC and HEIF: sharp's prebuilt libvips has no HEVC encoder (heifsave: "Unsupported compression") and Debian's
 * ffmpeg 5.1 has no HEIF muxer, so the HEIC and HEIF samples are sharp's AVIF with the ftyp brands rewritten in
 * place (same length, so item offsets stay right): major "heic" (compatible mif1, heic, miaf) and major "mif1"
 * (compatible mif1, miaf, miaf). Identification goes by brand, and c2pa-rs signs ISO BMFF whatever the codec.
 */
export type Samples = Record<MediaMimeType, Buffer>;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));

async function ffmpeg(dir: string, name: string, args: string[]): Promise<Buffer> {
  const out = path.join(dir, name);
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, out]);
  return readFile(out);
}

function box(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** A JPEG XL container (signature box, ftyp "jxl ", jxlc) around a bare codestream. */
export function jxlContainer(codestream: Buffer): Buffer {
  return Buffer.concat([Buffer.from('0000000c4a584c200d0a870a', 'hex'), box('ftyp', Buffer.from('jxl \0\0\0\0jxl ', 'latin1')), box('jxlc', codestream)]);
}

/** Rewrites the ftyp brands of an ISO BMFF file in place: `brands` = major, then the compatible ones. */
export function withBrands(file: Buffer, brands: string[]): Buffer {
  const copy = Buffer.from(file);
  const size = copy.readUInt32BE(0);
  if (copy.toString('latin1', 4, 8) !== 'ftyp' || 16 + (brands.length - 1) * 4 !== size) throw new Error('brand list does not fit the ftyp box');
  copy.write(brands[0]!, 8, 'latin1');
  brands.slice(1).forEach((b, i) => copy.write(b, 16 + i * 4, 'latin1'));
  return copy;
}

/**
 * A minimal little-endian DNG: one IFD (8x8 8-bit greyscale strip, DNGVersion 1.4, UniqueCameraModel), written by
 * hand as a TIFF, with the pixel data last as cameras write the raw data.
 */
export function tinyDng(): Buffer {
  const width = 8;
  const height = 8;
  const model = Buffer.from('Test camera\0', 'latin1');
  const entries: [tag: number, type: number, count: number, value: number | Buffer][] = [
    [254, 4, 1, 0],
    [256, 3, 1, width],
    [257, 3, 1, height],
    [258, 3, 1, 8],
    [259, 3, 1, 1],
    [262, 3, 1, 1],
    [273, 4, 1, 0], // StripOffsets: filled in below
    [277, 3, 1, 1],
    [278, 3, 1, height],
    [279, 4, 1, width * height],
    [50706, 1, 4, Buffer.from([1, 4, 0, 0])],
    [50708, 2, model.length, model],
  ];
  const ifdSize = 2 + entries.length * 12 + 4;
  const modelAt = 8 + ifdSize;
  const dataAt = modelAt + model.length;
  const out = Buffer.alloc(dataAt + width * height);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  out.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 10 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    if (tag === 273) out.writeUInt32LE(dataAt, at + 8);
    else if (tag === 50708) out.writeUInt32LE(modelAt, at + 8);
    else if (Buffer.isBuffer(value)) value.copy(out, at + 8);
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  model.copy(out, modelAt);
  for (let i = 0; i < width * height; i += 1) out[dataAt + i] = (i * 37) & 0xff;
  return out;
}

export const SVG_SAMPLE = Buffer.from(
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- a test drawing -->',
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30" viewBox="0 0 40 30">',
    '  <style><![CDATA[ rect { fill: #36a; } ]]></style>',
    '  <g id="g1" transform="translate(2, 2)">',
    '    <rect width="20" height="10"/>',
    '    <circle cx="30" cy="20" r="5" fill="#c33" data-note="a > b"/>',
    '    <text x="1" y="25">Zoë &amp; Ümit</text>',
    '  </g>',
    '</svg>',
    '',
  ].join('\n'),
);

/** Makes the samples in a fresh temp directory (about a second: a dozen small encodes). */
export async function makeSamples(): Promise<{ dir: string; samples: Samples }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'media-samples-'));
  const picture = sharp({ create: { width: 48, height: 32, channels: 3, background: '#3366aa' } }).composite([
    { input: { create: { width: 16, height: 16, channels: 3, background: '#cc3333' } }, left: 8, top: 8 },
  ]);
  const still = await picture.clone().png().toBuffer();
  const video = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.3'];
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.3'];
  const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  const [webp, gif, tiff, avif, mp4, m4v, mov, avi, m4a, mp3, wav, flac, jxl] = await Promise.all([
    sharp(still).webp().toBuffer(),
    sharp(still).gif().toBuffer(),
    sharp(still).tiff().toBuffer(),
    sharp(still).avif().toBuffer(),
    ffmpeg(dir, 'v.mp4', [...video, ...tone, ...h264, '-c:a', 'aac', '-shortest']),
    ffmpeg(dir, 'v.m4v', [...video, ...h264, '-f', 'ipod']),
    ffmpeg(dir, 'v.mov', [...video, ...tone, ...h264, '-c:a', 'aac', '-shortest']),
    ffmpeg(dir, 'v.avi', [...video, '-c:v', 'mjpeg']),
    ffmpeg(dir, 'a.m4a', [...tone, '-c:a', 'aac']),
    ffmpeg(dir, 'a.mp3', [...tone, '-c:a', 'libmp3lame', '-b:a', '32k']),
    ffmpeg(dir, 'a.wav', [...tone, '-ar', '8000', '-c:a', 'pcm_s16le']),
    ffmpeg(dir, 'a.flac', [...tone, '-ar', '8000', '-c:a', 'flac']),
    ffmpeg(dir, 'i.jxl', ['-f', 'lavfi', '-i', 'testsrc=size=32x24', '-frames:v', '1', '-c:v', 'libjxl']),
  ]);
  const samples: Samples = {
    'image/jpeg': fixture('small.jpg'),
    'image/png': fixture('graphic.png'),
    'image/webp': webp,
    'image/gif': gif,
    'image/tiff': tiff,
    'image/x-adobe-dng': tinyDng(),
    'image/avif': avif,
    'image/heic': withBrands(avif, ['heic', 'mif1', 'heic', 'miaf']),
    'image/heif': withBrands(avif, ['mif1', 'mif1', 'miaf', 'miaf']),
    'image/jxl': jxlContainer(jxl),
    'image/svg+xml': SVG_SAMPLE,
    'video/mp4': mp4,
    'video/x-m4v': m4v,
    'video/quicktime': mov,
    'video/x-msvideo': avi,
    'audio/mp4': m4a,
    'audio/mpeg': mp3,
    'audio/wav': wav,
    'audio/flac': flac,
    'application/pdf': tinyPdf(),
    'application/epub+zip': tinyEpub(),
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document': tinyDocx(),
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': tinyXlsx(),
    'application/vnd.openxmlformats-officedocument.presentationml.presentation': tinyPptx(),
    'application/vnd.oasis.opendocument.text': tinyOdf('application/vnd.oasis.opendocument.text'),
    'application/vnd.oasis.opendocument.spreadsheet': tinyOdf('application/vnd.oasis.opendocument.spreadsheet'),
    'application/vnd.oasis.opendocument.presentation': tinyOdf('application/vnd.oasis.opendocument.presentation'),
    'application/vnd.oasis.opendocument.graphics': tinyOdf('application/vnd.oasis.opendocument.graphics'),
  };
  await writeFile(path.join(dir, 'codestream.jxl'), jxl);
  return { dir, samples };
}

/**
 * Other shapes of the same formats, as cameras, phones and tools write them: fragmented and fast-start MP4, MPEG-2 /
 * MPEG-2.5 and VBR MP3, 24-bit and float WAV, stereo FLAC, BigTIFF, lossless and alpha (VP8X) WebP, animated GIF.
 */
export async function makeVariants(dir: string): Promise<[label: string, MediaMimeType, Buffer][]> {
  const video = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.5'];
  const tone = (rate: number, channels = 1) => ['-f', 'lavfi', '-i', `sine=frequency=440:duration=0.3:sample_rate=${rate}`, '-ac', String(channels)];
  const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '2'];
  const rgba = await sharp({ create: { width: 24, height: 16, channels: 4, background: { r: 200, g: 50, b: 50, alpha: 0.5 } } }).png().toBuffer();
  const frame = (background: string) => sharp({ create: { width: 16, height: 16, channels: 3, background } }).png().toBuffer();
  const frames = await Promise.all(['#2a6', '#a26', '#26a'].map(frame));
  const out = await Promise.all([
    ffmpeg(dir, 'frag.mp4', [...video, ...h264, '-movflags', 'frag_keyframe+empty_moov']).then((b) => ['fragmented MP4', 'video/mp4', b] as const),
    ffmpeg(dir, 'fast.mp4', [...video, ...h264, '-movflags', '+faststart']).then((b) => ['fast-start MP4 (moov first)', 'video/mp4', b] as const),
    ffmpeg(dir, 'hevc.mov', [...video, '-c:v', 'libx265', '-preset', 'ultrafast', '-x265-params', 'log-level=none', '-tag:v', 'hvc1']).then((b) => ['HEVC MOV', 'video/quicktime', b] as const),
    ffmpeg(dir, 'mpeg2.mp3', [...tone(22050, 2), '-c:a', 'libmp3lame', '-q:a', '5']).then((b) => ['MPEG-2 stereo VBR MP3', 'audio/mpeg', b] as const),
    ffmpeg(dir, 'mpeg25.mp3', [...tone(8000), '-c:a', 'libmp3lame', '-b:a', '8k', '-id3v2_version', '0']).then((b) => ['MPEG-2.5 MP3 without ID3', 'audio/mpeg', b] as const),
    ffmpeg(dir, 'pcm24.wav', [...tone(48000, 2), '-c:a', 'pcm_s24le']).then((b) => ['24-bit stereo WAV', 'audio/wav', b] as const),
    ffmpeg(dir, 'float.wav', [...tone(16000), '-c:a', 'pcm_f32le']).then((b) => ['float WAV', 'audio/wav', b] as const),
    ffmpeg(dir, 'stereo.flac', [...tone(44100, 2), '-c:a', 'flac']).then((b) => ['stereo FLAC', 'audio/flac', b] as const),
    sharp(rgba).tiff({ bigtiff: true }).toBuffer().then((b) => ['BigTIFF', 'image/tiff', b] as const),
    sharp(rgba).webp({ lossless: true }).toBuffer().then((b) => ['lossless WebP', 'image/webp', b] as const),
    sharp(rgba).webp({ quality: 50 }).toBuffer().then((b) => ['lossy WebP with alpha (VP8X)', 'image/webp', b] as const),
    sharp(frames, { join: { animated: true } }).gif({ delay: 100, loop: 0 }).toBuffer().then((b) => ['animated GIF', 'image/gif', b] as const),
  ]);
  return out.map(([label, type, bytes]) => [label, type, bytes]);
}

/** The ISO BMFF top-level boxes of a file: type, offset and size. */
export function topLevelBoxes(file: Buffer): { type: string; at: number; size: number }[] {
  const out: { type: string; at: number; size: number }[] = [];
  for (let at = 0; at + 8 <= file.length; ) {
    let size = file.readUInt32BE(at);
    if (size === 1) size = Number(file.readBigUInt64BE(at + 8));
    if (size === 0) size = file.length - at;
    out.push({ type: file.toString('latin1', at + 4, at + 8), at, size });
    at += size;
  }
  return out;
}

export const withBytes = (b: Buffer, at: number, bytes: number[] | string) => {
  const copy = Buffer.from(b);
  (typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes)).copy(copy, at < 0 ? copy.length + at : at);
  return copy;
};
const u32be = (n: number) => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

/** The first child box of a top-level box (moov's mvhd, meta's hdlr): its size set past the end of its parent. */
function damageFirstChild(file: Buffer, parentType: string): Buffer {
  const parent = topLevelBoxes(file).find((b) => b.type === parentType)!;
  const childAt = parent.at + 8 + (parentType === 'meta' ? 4 : 0);
  return withBytes(file, childAt, u32be(parent.size + 100));
}

/** Offset of the TIFF IFD0 entry for `tag` (little-endian files, IFD at the offset in the header). */
function tiffEntry(file: Buffer, tag: number): number {
  const ifd = file.readUInt32LE(4);
  for (let i = 0; i < file.readUInt16LE(ifd); i += 1) if (file.readUInt16LE(ifd + 2 + i * 12) === tag) return ifd + 2 + i * 12;
  throw new Error(`no tag ${tag}`);
}

/** The offset of the `n`th MPEG audio frame (after the ID3v2 tag). */
export function mp3Frame(file: Buffer, n: number): number {
  let at = 10 + [6, 7, 8, 9].reduce((s, i) => s * 128 + file[i]!, 0);
  for (let i = 0; i < n; i += 1) at += parseFrameHeader(file, at)!.length;
  return at;
}

/**
 * A ZIP document with an entry its format requires renamed in its headers (not where the package's own XML names
 * it): the archive is sound, the document is not.
 */
const withoutEntry = (name: string) => (b: Buffer) => {
  const pattern = new RegExp(`(?<![/"])${name.replace(/[.[\]]/g, '\\$&')}`, 'g');
  return Buffer.from(b.toString('latin1').replace(pattern, `${name.slice(0, -1)}x`), 'latin1');
};

/**
 * One damaged copy of each format's sample: a structure the walk must find broken (test/media/format-contract.test.ts
 * refuses each as corrupt).
 */
export const DAMAGE: Record<MediaMimeType, [what: string, (b: Buffer) => Buffer]> = {
  'image/jpeg': ['the marker after the first segment zeroed', (b) => withBytes(b, 4 + b.readUInt16BE(4), [0, 0])],
  'image/png': ['a byte of IHDR changed (CRC)', (b) => withBytes(b, 18, [b[18]! ^ 0xff])],
  'image/webp': ['the first chunk renamed VP9', (b) => withBytes(b, 12, 'VP9 ')],
  'image/gif': ['the trailer replaced', (b) => withBytes(b, -1, [0x00])],
  'image/tiff': ['the first IFD offset outside the file', (b) => withBytes(b, 4, [0xf0, 0xff, 0xff, 0x7f])],
  'image/x-adobe-dng': ['the strip offset pointing at the end', (b) => { const c = Buffer.from(b); c.writeUInt32LE(b.length - 10, tiffEntry(b, 273) + 8); return c; }],
  'image/avif': ['a box inside meta larger than meta', (b) => damageFirstChild(b, 'meta')],
  'image/heic': ['a box inside meta larger than meta', (b) => damageFirstChild(b, 'meta')],
  'image/heif': ['a box inside meta larger than meta', (b) => damageFirstChild(b, 'meta')],
  'image/jxl': ['the jxlc box size past the end', (b) => withBytes(b, 32, u32be(b.length))],
  'image/svg+xml': ['an end tag that does not match', (b) => Buffer.from(b.toString('utf8').replace('</g>', '</h>'))],
  'video/mp4': ['a box inside moov larger than moov', (b) => damageFirstChild(b, 'moov')],
  'video/x-m4v': ['a box inside moov larger than moov', (b) => damageFirstChild(b, 'moov')],
  'video/quicktime': ['a box inside moov larger than moov', (b) => damageFirstChild(b, 'moov')],
  'video/x-msvideo': ['LIST hdrl renamed', (b) => withBytes(b, 20, 'hdrx')],
  'audio/mp4': ['a box inside moov larger than moov', (b) => damageFirstChild(b, 'moov')],
  'audio/mpeg': ['the third frame header zeroed', (b) => withBytes(b, mp3Frame(b, 2), [0, 0, 0, 0])],
  'audio/wav': ['"fmt " renamed', (b) => withBytes(b, 12, 'fmx ')],
  'audio/flac': ['a byte of the last frame changed (CRC-16)', (b) => withBytes(b, -10, [b[b.length - 10]! ^ 0x55])],
  'application/pdf': ['startxref pointing past the end', (b) => Buffer.from(b.toString('latin1').replace(/startxref\n\d+/, 'startxref\n999999'), 'latin1')],
  'application/epub+zip': ['META-INF/container.xml missing', withoutEntry('META-INF/container.xml')],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['its main part missing', withoutEntry('word/document.xml')],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['its main part missing', withoutEntry('xl/workbook.xml')],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['its main part missing', withoutEntry('ppt/presentation.xml')],
  'application/vnd.oasis.opendocument.text': ['content.xml missing', withoutEntry('content.xml')],
  'application/vnd.oasis.opendocument.spreadsheet': ['content.xml missing', withoutEntry('content.xml')],
  'application/vnd.oasis.opendocument.presentation': ['content.xml missing', withoutEntry('content.xml')],
  'application/vnd.oasis.opendocument.graphics': ['content.xml missing', withoutEntry('content.xml')],
};

/** The rejection identifyMedia throws for a file, or undefined when it accepts it. */
export async function rejection(file: string, checkStructure = true): Promise<MediaRejectedError | undefined> {
  try {
    await identifyMedia(file, { checkStructure });
    return undefined;
  } catch (err) {
    if (err instanceof MediaRejectedError) return err;
    throw err;
  }
}

/** Signs through signAsset with the test chain: title "sample.<subtype>", creator Ada Lovelace. */
export function signSample(chain: OpensslChain, bytes: Uint8Array, mimeType: MediaMimeType, sourceHasManifest = false): Promise<Uint8Array> {
  return signAsset({
    bytes,
    mimeType,
    manifest: buildManifestDefinition({ title: `sample.${mimeType.split('/')[1]!.split('.').at(-1)}`, creator: 'Ada Lovelace' }, { sourceHasManifest }),
    key: chain.keys.leaf,
    chainDer: [chain.der.leaf, chain.der.subCa],
    trustAnchorsPem: chain.pem.root,
  });
}
