/**
 * How long a video or audio file plays, where its format's header says so (the descriptor's durationSeconds: the
 * movie header of ISO media, the byte rate and data size of a WAV file). Other formats (MP3, FLAC, AVI) would need
 * their frames counted or decoded; they get no duration.
 */
import { walkFileOrUndefined } from './byte-walk.js';
import { formatFor } from './formats.js';

/** The playing time in seconds, or undefined when the format does not carry it (or the file does not say). */
export async function mediaDurationSeconds(filePath: string, mimeType: string): Promise<number | undefined> {
  return walkFileOrUndefined(filePath, formatFor(mimeType)?.durationSeconds);
}

/** ISO 8601 duration as schema.org writes it, to the millisecond: PT1M2.5S. */
export function isoDuration(seconds: number): string {
  const totalMs = Math.round(seconds * 1000);
  const h = Math.floor(totalMs / 3_600_000);
  const m = Math.floor((totalMs % 3_600_000) / 60_000);
  const s = (totalMs % 60_000) / 1000;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${Number(s.toFixed(3))}S` : ''}`;
}
