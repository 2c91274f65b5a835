/**
 * How long a video or audio file plays, where the format says so in its header: the movie header (mvhd) of ISO media
 * (MP4, M4V, MOV, M4A) and the byte rate and data size of a WAV file. Other formats (MP3, FLAC, AVI) would need
 * their frames counted or decoded; they get no duration.
 */
import { open } from 'node:fs/promises';
import { readExactly, runOnFile, type Walk } from './byte-walk.js';
import { boxesIn } from './walks/bmff.js';
import { chunksIn } from './walks/riff.js';

function* bmffSeconds(size: number): Walk<number | undefined> {
  const moov = (yield* boxesIn(0, size, 'the file', true)).find((b) => b.type === 'moov');
  if (!moov) return undefined;
  const mvhd = (yield* boxesIn(moov.payload, moov.end, 'the moov box', true)).find((b) => b.type === 'mvhd');
  if (!mvhd) return undefined;
  const head = yield* readExactly(mvhd.payload, Math.min(32, mvhd.end - mvhd.payload), 'the mvhd box');
  const v1 = head[0] === 1;
  if (head.length < (v1 ? 32 : 20)) return undefined;
  const timescale = v1 ? head.readUInt32BE(20) : head.readUInt32BE(12);
  const duration = v1 ? Number(head.readBigUInt64BE(24)) : head.readUInt32BE(16);
  // All ones: "unknown" (e.g. a fragmented file whose fragments carry the time).
  if (timescale === 0 || duration === 0 || (!v1 && duration === 0xffffffff)) return undefined;
  return duration / timescale;
}

function* wavSeconds(size: number): Walk<number | undefined> {
  const chunks = yield* chunksIn(12, size, 'the WAV file');
  const fmt = chunks.find((c) => c.id === 'fmt ');
  const data = chunks.find((c) => c.id === 'data');
  if (!fmt || !data || fmt.size < 16) return undefined;
  const byteRate = (yield* readExactly(fmt.data + 8, 4, 'the fmt chunk')).readUInt32LE(0);
  return byteRate > 0 ? data.size / byteRate : undefined;
}

const READERS: Record<string, (size: number) => Walk<number | undefined>> = {
  'video/mp4': bmffSeconds,
  'video/x-m4v': bmffSeconds,
  'video/quicktime': bmffSeconds,
  'audio/mp4': bmffSeconds,
  'audio/wav': wavSeconds,
};

/** The playing time in seconds, or undefined when the format does not carry it (or the file does not say). */
export async function mediaDurationSeconds(filePath: string, mimeType: string): Promise<number | undefined> {
  const reader = READERS[mimeType];
  if (!reader) return undefined;
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    return await runOnFile(reader(size), fh, size);
  } catch {
    return undefined; // a duration is a nicety: a file the walk cannot read is signed without one
  } finally {
    await fh.close();
  }
}

/** ISO 8601 duration as schema.org writes it, to the millisecond: PT1M2.5S. */
export function isoDuration(seconds: number): string {
  const totalMs = Math.round(seconds * 1000);
  const h = Math.floor(totalMs / 3_600_000);
  const m = Math.floor((totalMs % 3_600_000) / 60_000);
  const s = (totalMs % 60_000) / 1000;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${Number(s.toFixed(3))}S` : ''}`;
}
