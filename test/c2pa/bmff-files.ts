/**
 * ISO BMFF files for the streamed signing tests: small clips made by ffmpeg, and the shapes real files take that ffmpeg
 * does not write for small ones, made by rewriting boxes here (a 64-bit mdat size, co64 chunk offsets, chunk offsets
 * near 4 GiB), plus the box-level look at a file the tests make their judgements from.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A top-level box: its type, where it starts, its whole size and its header's. */
export interface Box {
  type: string;
  offset: number;
  size: number;
  header: number;
}

/** The boxes between `start` and `end` of `file` (a size of 1: 64-bit; 0: to the end). */
export function boxesOf(file: Buffer, start = 0, end = file.length): Box[] {
  const boxes: Box[] = [];
  for (let at = start; at + 8 <= end; ) {
    let size = file.readUInt32BE(at);
    let header = 8;
    if (size === 1) [size, header] = [Number(file.readBigUInt64BE(at + 8)), 16];
    else if (size === 0) size = end - at;
    boxes.push({ type: file.toString('latin1', at + 4, at + 8), offset: at, size, header });
    at += size;
  }
  return boxes;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'moof', 'traf', 'mvex', 'edts', 'udta', 'dinf', 'mfra']);

/** Every box of `type` anywhere in the containers the tests look into, with the chain of boxes around it. */
export function findBoxes(file: Buffer, type: string, start = 0, end = file.length, around: Box[] = []): { box: Box; around: Box[] }[] {
  const found: { box: Box; around: Box[] }[] = [];
  for (const box of boxesOf(file, start, end)) {
    if (box.type === type) found.push({ box, around });
    if (CONTAINERS.has(box.type)) found.push(...findBoxes(file, type, box.offset + box.header, box.offset + box.size, [...around, box]));
  }
  return found;
}

/** The chunk offsets of every stco and co64 table, in file order. */
export function chunkOffsets(file: Buffer): { type: string; offsets: number[] }[] {
  return ['stco', 'co64'].flatMap((type) =>
    findBoxes(file, type).map(({ box }) => {
      const count = file.readUInt32BE(box.offset + box.header + 4);
      const at = box.offset + box.header + 8;
      const offsets = Array.from({ length: count }, (_, i) => (type === 'stco' ? file.readUInt32BE(at + 4 * i) : Number(file.readBigUInt64BE(at + 8 * i))));
      return { type, offsets, offset: box.offset };
    }),
  ).sort((a, b) => a.offset - b.offset).map(({ type, offsets }) => ({ type, offsets }));
}

/** A copy of `file` with one bit of the byte `into` bytes into its (first) mdat's payload flipped. */
export function withFlippedMediaByte(file: Buffer, into = 1000): Buffer {
  const mdat = boxesOf(file).find((b) => b.type === 'mdat');
  if (!mdat || mdat.size - mdat.header <= into) throw new Error('no mdat to flip a byte of');
  const copy = Buffer.from(file);
  copy[mdat.offset + mdat.header + into] ^= 0x01;
  return copy;
}

/**
 * The mdat box given a 64-bit size: ffmpeg puts an 8-byte `free` box right before mdat for this, so the 16-byte header
 * takes the place of both and no media byte moves.
 */
export function withLargesizeMdat(file: Buffer): Buffer {
  const boxes = boxesOf(file);
  const i = boxes.findIndex((b) => b.type === 'mdat');
  const free = boxes[i - 1];
  if (!free || free.type !== 'free' || free.size !== 8) throw new Error('ffmpeg left no 8-byte free box before mdat');
  const copy = Buffer.from(file);
  copy.writeUInt32BE(1, free.offset);
  copy.write('mdat', free.offset + 4, 'latin1');
  copy.writeBigUInt64BE(BigInt(8 + boxes[i]!.size), free.offset + 8);
  return copy;
}

/** Replaces `old` (a box inside the chain `around`) with `replacement`, growing the sizes of the boxes around it. */
function replaceBox(file: Buffer, old: Box, around: Box[], replacement: Buffer): Buffer {
  const growth = replacement.length - old.size;
  const copy = Buffer.concat([file.subarray(0, old.offset), replacement, file.subarray(old.offset + old.size)]);
  for (const box of around) {
    if (box.header === 16) copy.writeBigUInt64BE(BigInt(box.size + growth), box.offset + 8);
    else copy.writeUInt32BE(box.size + growth, box.offset);
  }
  return copy;
}

/**
 * Every stco rewritten as co64 with the same offsets, as a muxer writes a file over 4 GiB. For a file whose moov
 * follows its media (ffmpeg's default), no media byte moves.
 */
export function withCo64(file: Buffer): Buffer {
  let out = file;
  for (;;) {
    const next = findBoxes(out, 'stco')[0];
    if (!next) return out;
    const { box, around } = next;
    if (around.some((b) => b.offset < boxesOf(out).find((t) => t.type === 'mdat')!.offset)) throw new Error('moov before mdat: rewriting stco would move the media');
    const count = out.readUInt32BE(box.offset + box.header + 4);
    const co64 = Buffer.alloc(16 + 8 * count);
    co64.writeUInt32BE(co64.length, 0);
    co64.write('co64', 4, 'latin1');
    out.copy(co64, 8, box.offset + box.header, box.offset + box.header + 8);
    for (let i = 0; i < count; i += 1) co64.writeBigUInt64BE(BigInt(out.readUInt32BE(box.offset + box.header + 8 + 4 * i)), 16 + 8 * i);
    out = replaceBox(out, box, around, co64);
  }
}

/**
 * Every stco entry set to just under 4 GiB (`below` bytes under it, each its own): a file that small cannot have them,
 * but the BMFF hash does not look at what offsets point to, and a signature that inserts `below` bytes or more must
 * widen the tables to co64.
 */
export function withOffsetsNear4GiB(file: Buffer, below: number): Buffer {
  const copy = Buffer.from(file);
  let n = 0;
  for (const { box } of findBoxes(copy, 'stco')) {
    const count = copy.readUInt32BE(box.offset + box.header + 4);
    for (let i = 0; i < count; i += 1) copy.writeUInt32BE(2 ** 32 - below + n++, box.offset + box.header + 8 + 4 * i);
  }
  return copy;
}

const video = ['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10'];
const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000'];
const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** The clips the tests sign, by name (one second each): MP4 (video and audio), MOV, M4V, M4A, a fast-start MP4 and a fragmented one. */
export const CLIPS = {
  'clip.mp4': { mimeType: 'video/mp4', args: [...video, ...tone, '-t', '1', ...h264, '-c:a', 'aac'] },
  'clip.mov': { mimeType: 'video/quicktime', args: [...video, ...tone, '-t', '1', ...h264, '-c:a', 'aac'] },
  'clip.m4v': { mimeType: 'video/x-m4v', args: [...video, '-t', '1', ...h264, '-f', 'ipod'] },
  'clip.m4a': { mimeType: 'audio/mp4', args: [...tone, '-t', '1', '-c:a', 'aac'] },
  'fast.mp4': { mimeType: 'video/mp4', args: [...video, '-t', '1', ...h264, '-movflags', '+faststart'] },
  // Fragments whose tfhd carries an absolute base data offset, and a random access index (mfra/tfra): both moved.
  'fragmented.mp4': { mimeType: 'video/mp4', args: [...video, '-t', '1', ...h264, '-movflags', 'frag_keyframe+empty_moov', '-frag_duration', '200000'] },
} as const;

export type ClipName = keyof typeof CLIPS;

export async function makeClip(dir: string, name: ClipName): Promise<Buffer> {
  const out = path.join(dir, name);
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...CLIPS[name].args, out]);
  return readFile(out);
}
