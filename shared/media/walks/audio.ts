import { readAt, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

// ---------------------------------------------------------------- ID3v2 (in front of MP3, and of FLAC signed by c2pa-rs)

/**
 * Skips the ID3v2 tags at `pos` (there may be more than one) and zero padding after them; returns where the audio
 * starts. A tag whose header is damaged or that runs past the end is `corrupt`.
 */
export function* skipId3v2(pos: number, size: number): Walk<number> {
  for (let tags = 0; tags < 16; tags += 1) {
    const header = yield* readAt(pos, 10);
    if (header.length < 3 || header.toString('latin1', 0, 3) !== 'ID3') break;
    if (header.length < 10) throw corrupt('the ID3 tag is truncated');
    const [major, revision, flags] = [header[3]!, header[4]!, header[5]!];
    const syncsafe = [header[6]!, header[7]!, header[8]!, header[9]!];
    if (major < 2 || major > 4 || revision === 0xff || syncsafe.some((b) => b & 0x80)) throw corrupt('the ID3 tag header is damaged');
    const length = syncsafe.reduce((n, b) => n * 128 + b, 0);
    pos += 10 + length + (major === 4 && flags & 0x10 ? 10 : 0);
    if (pos > size) throw corrupt('the file is truncated: its ID3 tag runs past the end');
  }
  // Some taggers leave zero padding after the tag: skip a little of it.
  const pad = yield* readAt(pos, 4096);
  let skip = 0;
  while (skip < pad.length && pad[skip] === 0) skip += 1;
  return skip < pad.length ? pos + skip : pos;
}

/** Where the audio starts: after the ID3v2 tags when the file starts with one (they say audio follows), else 0. */
export function* audioStart(head: Buffer, size: number): Walk<number> {
  if (head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const audio = yield* skipId3v2(0, size);
  if (audio >= size) throw corrupt('the file holds an ID3 tag and no audio');
  return audio;
}

/** An ID3 tag in front of audio no format of the registry claims (asked only then). */
export function* id3BeforeOtherAudio(head: Buffer): Walk<string | undefined> {
  return head.toString('latin1', 0, 3) === 'ID3' ? 'the audio after the ID3 tag is not MP3 or FLAC' : undefined;
}

// ---------------------------------------------------------------- MPEG audio (MP3)

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

interface FrameHeader {
  /** Version bits, sample-rate index and channel mode: the parts that stay the same through a stream. */
  key: number;
  length: number;
  mpeg1: boolean;
  mono: boolean;
  crc: boolean;
}

/** An MPEG-1/2/2.5 Layer III frame header (free-format bitrate refused); undefined when these 4 bytes are none. */
export function parseFrameHeader(b: Buffer, at = 0): FrameHeader | undefined {
  if (b.length < at + 4 || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1]! >> 3) & 0x03; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = (b[at + 1]! >> 1) & 0x03; // 1: Layer III
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 0x03;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = version === 3;
  const bitrate = (mpeg1 ? BITRATES_V1_L3 : BITRATES_V2_L3)[bitrateIndex]! * 1000;
  const rate = SAMPLE_RATES[version]![rateIndex]!;
  const padding = (b[at + 2]! >> 1) & 0x01;
  const length = Math.floor(((mpeg1 ? 144 : 72) * bitrate) / rate) + padding;
  const mode = b[at + 3]! >> 6;
  return { key: (version << 4) | (rateIndex << 2) | (mode === 3 ? 1 : 0), length, mpeg1, mono: mode === 3, crc: (b[at + 1]! & 0x01) === 0 };
}

/**
 * The frame at `start` and the `frames - 1` after it are valid, alike Layer III frames: random bytes rarely pass
 * three in a row (after an ID3 tag, which says audio follows, one is enough). A shorter file passes with fewer (its
 * truncation is the structure check's to judge).
 */
export function* looksLikeMp3(start: number, size: number, frames = 3): Walk<boolean> {
  let pos = start;
  let key: number | undefined;
  for (let i = 0; i < frames; i += 1) {
    if (pos >= size) return i > 0;
    const frame = parseFrameHeader(yield* readAt(pos, 4));
    if (!frame || (key !== undefined && frame.key !== key)) return false;
    key = frame.key;
    pos += frame.length;
  }
  return true;
}

/** Where the audio frames end: before an ID3v1 tag, an APEv2 tag and a Lyrics3v2 block at the end of the file. */
function* audioEnd(start: number, size: number): Walk<number> {
  let end = size;
  if (end - start >= 128 && (yield* readAt(end - 128, 3)).toString('latin1') === 'TAG') end -= 128;
  if (end - start >= 15) {
    const lyrics = yield* readAt(end - 15, 15);
    if (lyrics.toString('latin1', 6, 15) === 'LYRICS200' && /^\d{6}$/.test(lyrics.toString('latin1', 0, 6))) {
      end -= 15 + Number(lyrics.toString('latin1', 0, 6));
    }
  }
  if (end - start >= 32) {
    const ape = yield* readAt(end - 32, 32);
    if (ape.toString('latin1', 0, 8) === 'APETAGEX') end -= ape.readUInt32LE(12) + (ape.readUInt32LE(20) & 0x80000000 ? 32 : 0);
  }
  if (end < start) throw corrupt('the MP3 has a damaged tag at its end');
  return end;
}

/**
 * MP3: ID3v2 tags skipped by their sizes, then a walk over every MPEG audio frame header (each valid, alike in
 * version, sample rate and channels, each frame in bounds) up to the end of the file or its ID3v1 / APE / Lyrics3
 * tags; the Xing/Info header's byte count, when there is one, must not exceed what is there.
 */
export function* checkMp3(size: number): Walk<void> {
  const start = yield* skipId3v2(0, size);
  const end = yield* audioEnd(start, size);
  let pos = start;
  let key: number | undefined;
  let frames = 0;
  let declaredBytes: number | undefined;
  while (pos < end) {
    const head = yield* readAt(pos, 4);
    const frame = parseFrameHeader(head);
    if (!frame || (key !== undefined && frame.key !== key)) {
      if (end - pos < 4 && frames > 0) throw corrupt('the MP3 is truncated (its last frame is cut off)');
      throw corrupt(`the MP3 frame sequence is broken at byte ${pos}`);
    }
    if (pos + frame.length > end) {
      throw corrupt(end === size ? 'the MP3 is truncated (its last frame is cut off)' : 'the MP3 frames run into the tag at its end');
    }
    if (frames === 0) {
      // A Xing / Info (VBR) header in the first frame may say how many bytes the stream has.
      const at = 4 + (frame.crc ? 2 : 0) + (frame.mpeg1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17);
      const xing = yield* readAt(pos + at, 16);
      const tag = xing.toString('latin1', 0, 4);
      if (xing.length === 16 && (tag === 'Xing' || tag === 'Info')) {
        const flags = xing.readUInt32BE(4);
        if (flags & 0x02) declaredBytes = xing.readUInt32BE(flags & 0x01 ? 12 : 8);
      }
    }
    key = frame.key;
    frames += 1;
    pos += frame.length;
  }
  if (frames === 0) throw corrupt('the MP3 has no audio frames');
  if (declaredBytes !== undefined && declaredBytes > end - start) throw corrupt(`the MP3 is truncated: its header declares ${declaredBytes} bytes of audio, ${end - start} are there`);
}

// ---------------------------------------------------------------- FLAC

const CRC8_TABLE = new Uint8Array(256);
const CRC16_TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i += 1) {
  let c8 = i;
  let c16 = i << 8;
  for (let k = 0; k < 8; k += 1) {
    c8 = c8 & 0x80 ? ((c8 << 1) ^ 0x07) & 0xff : (c8 << 1) & 0xff;
    c16 = c16 & 0x8000 ? ((c16 << 1) ^ 0x8005) & 0xffff : (c16 << 1) & 0xffff;
  }
  CRC8_TABLE[i] = c8;
  CRC16_TABLE[i] = c16;
}
const crc8 = (b: Uint8Array) => b.reduce((c, x) => CRC8_TABLE[c ^ x]!, 0);
const crc16 = (b: Uint8Array, c = 0) => b.reduce((acc, x) => ((acc << 8) ^ CRC16_TABLE[(acc >> 8) ^ x]!) & 0xffff, c);

/** The length of a FLAC frame header at `at` whose CRC-8 checks; undefined when there is no valid header there. */
function frameHeaderLength(b: Buffer, at: number): number | undefined {
  if (b.length < at + 6 || b[at] !== 0xff || (b[at + 1]! & 0xfe) !== 0xf8) return undefined;
  const blockCode = b[at + 2]! >> 4;
  const rateCode = b[at + 2]! & 0x0f;
  if (blockCode === 0 || rateCode === 0x0f || (b[at + 3]! & 0x01) !== 0) return undefined;
  // The frame or sample number: UTF-8-like coding of 1 to 7 bytes.
  const lead = b[at + 4]!;
  let n = 1;
  if (lead >= 0x80) {
    if ((lead & 0xe0) === 0xc0) n = 2;
    else if ((lead & 0xf0) === 0xe0) n = 3;
    else if ((lead & 0xf8) === 0xf0) n = 4;
    else if ((lead & 0xfc) === 0xf8) n = 5;
    else if ((lead & 0xfe) === 0xfc) n = 6;
    else if (lead === 0xfe) n = 7;
    else return undefined;
  }
  let length = 4 + n;
  if (blockCode === 6) length += 1;
  else if (blockCode === 7) length += 2;
  if (rateCode === 12) length += 1;
  else if (rateCode === 13 || rateCode === 14) length += 2;
  if (b.length < at + length + 1 || crc8(b.subarray(at, at + length)) !== b[at + length]) return undefined;
  return length + 1;
}

/** How far back from the end the last frame is looked for when STREAMINFO gives no maximum frame size. */
const FLAC_TAIL = 1 << 20;

/**
 * FLAC: ID3v2 tags skipped (c2pa-rs keeps its manifest in one), "fLaC", metadata blocks in bounds with STREAMINFO
 * first (34 bytes, sane block sizes and sample rate) up to the block marked last, a frame header (CRC-8) where the
 * audio starts, and a last frame ending the file whose CRC-16 checks: a cut-off file fails that.
 */
export function* checkFlac(size: number): Walk<void> {
  const what = 'the FLAC file';
  let pos = yield* skipId3v2(0, size);
  if ((yield* readExactly(pos, 4, what)).toString('latin1') !== 'fLaC') throw corrupt(`${what} has no fLaC marker`);
  pos += 4;
  let first = true;
  let maxFrame = 0;
  for (;;) {
    const header = yield* readExactly(pos, 4, what);
    const last = (header[0]! & 0x80) !== 0;
    const type = header[0]! & 0x7f;
    const length = header.readUIntBE(1, 3);
    if (type === 127 || (first && (type !== 0 || length !== 34))) throw corrupt(`${what} has a damaged metadata block at byte ${pos}`);
    if (pos + 4 + length > size) throw corrupt(`${what} is truncated: a metadata block runs past the end`);
    if (first) {
      const info = yield* readExactly(pos + 4, 34, what);
      const minBlock = info.readUInt16BE(0);
      const maxBlock = info.readUInt16BE(2);
      maxFrame = info.readUIntBE(7, 3);
      const rate = info.readUIntBE(10, 3) >> 4;
      if (minBlock < 16 || maxBlock < minBlock || rate === 0) throw corrupt(`${what} has a damaged STREAMINFO block`);
    }
    pos += 4 + length;
    first = false;
    if (last) break;
  }
  const firstFrame = yield* readAt(pos, 32);
  if (frameHeaderLength(firstFrame, 0) === undefined) throw corrupt(`${what} has no valid audio frame after its metadata`);

  // The last frame: a header with a good CRC-8 from which the CRC-16 over the rest of the file matches its last 2 bytes.
  const window = Math.min(size - pos, maxFrame > 0 ? maxFrame + 16 : FLAC_TAIL);
  const tail = yield* readExactly(size - window, window, what);
  const stored = tail.readUInt16BE(tail.length - 2);
  for (let at = tail.length - 8; at >= 0; at -= 1) {
    if (tail[at] !== 0xff || frameHeaderLength(tail, at) === undefined) continue;
    if (crc16(tail.subarray(at, tail.length - 2)) === stored) return;
  }
  throw corrupt(`${what} is truncated or damaged: its last frame fails its CRC check`);
}
