/**
 * One representative frame of a video, taken by ffmpeg (Debian's `ffmpeg` package; FFMPEG_PATH): c2pa-rs makes no
 * thumbnails of video, and no JavaScript or WASM decoder on npm reads H.264, HEVC, ProRes and the rest.
 *
 * Which frame: ffmpeg seeks a tenth of the way in, at most 10 s, past the black or slate many clips open with, and
 * decodes key frames only (a camera's 4K long-GOP file would otherwise be decoded for seconds up to the seek point);
 * its `thumbnail` filter then picks, of the next FRAME_CANDIDATES key frames within FRAME_WINDOW_SECONDS, the one
 * nearest their average (not one mid-cut or mid-flash). A clip with no key frame in that window (one GOP longer than
 * the clip) is decoded in full from its key frame up to the seek point instead; the start is the last resort.
 * Displayed as a player shows it: rotation applied (ffmpeg's autorotate), non-square pixels made square, at most
 * `longEdge` pixels on its long side. Each candidate is shrunk to that size (area averaging) before the filter
 * compares them, so the filter converts and compares small pictures, not full frames; the chosen one comes out as
 * 8-bit RGB pixels (PPM), which nothing has to compress or decode again.
 *
 * ffmpeg parses untrusted files here, so it runs with what it needs only: local files (no network or other
 * protocols a crafted playlist or reference could name), one thread, stdin closed, FRAME_TIMEOUT_MS, then SIGKILL.
 */
import { execFile } from 'node:child_process';

export const FRAME_CANDIDATES = 12;
export const FRAME_TIMEOUT_MS = 30_000;
/** How much of the video after the seek point is read for candidates (bounds the bytes read of a long GOP). */
export const FRAME_WINDOW_SECONDS = 30;
/** Largest long edge a frame may be asked for: its pixels stay within MAX_OUTPUT_BYTES. */
export const FRAME_MAX_LONG_EDGE = 2048;
const MAX_OUTPUT_BYTES = FRAME_MAX_LONG_EDGE * FRAME_MAX_LONG_EDGE * 3 + 64;

export class VideoFrameError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VideoFrameError';
  }
}

/** Where to take the frame: a tenth of the way in, at most 10 s; the start when the duration is unknown. */
export function frameSeekSeconds(durationSeconds: number | undefined): number {
  if (durationSeconds === undefined || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  return Math.min(durationSeconds / 10, 10);
}

function ffmpegArgs(filePath: string, seekSeconds: number, keyFramesOnly: boolean, edge: number): string[] {
  return [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    '-protocol_whitelist', 'file',
    '-threads', '1',
    ...(keyFramesOnly ? ['-skip_frame', 'nokey'] : []),
    '-ss', seekSeconds.toFixed(3),
    '-t', String(FRAME_WINDOW_SECONDS),
    // `file:` so a path is never read as another protocol's URL.
    '-i', `file:${filePath}`,
    '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', `scale=iw*sar:ih,setsar=1,scale=w='min(${edge},iw)':h='min(${edge},ih)':force_original_aspect_ratio=decrease:flags=area,format=rgb24,thumbnail=${FRAME_CANDIDATES}`,
    '-frames:v', '1',
    '-f', 'image2pipe', '-c:v', 'ppm', 'pipe:1',
  ];
}

function runFfmpeg(ffmpegPath: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(ffmpegPath, args, { encoding: 'buffer', maxBuffer: MAX_OUTPUT_BYTES, timeout: FRAME_TIMEOUT_MS, killSignal: 'SIGKILL', windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return reject(new VideoFrameError(`ffmpeg was not found at "${ffmpegPath}" (FFMPEG_PATH)`, { cause: err }));
      if (err.killed) return reject(new VideoFrameError(`ffmpeg took longer than ${FRAME_TIMEOUT_MS / 1000} s`, { cause: err }));
      const said = stderr.toString('utf8').trim().split('\n').pop()?.slice(0, 300);
      reject(new VideoFrameError(`ffmpeg could not decode a frame${said ? `: ${said}` : ''}`, { cause: err }));
    });
  });
}

/** A frame's pixels: 8-bit RGB, row by row, no padding. */
export interface VideoFrame {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
}

/** The picture in ffmpeg's binary PPM (P6: a text header, then RGB bytes); anything else is VideoFrameError. */
export function parsePpm(bytes: Buffer): VideoFrame {
  const header = /^P6\s+(\d{1,5})\s+(\d{1,5})\s+(\d{1,5})\s/.exec(bytes.subarray(0, 32).toString('latin1'));
  const [width, height, maxValue] = header ? [Number(header[1]), Number(header[2]), Number(header[3])] : [0, 0, 0];
  const start = header?.[0].length ?? 0;
  if (!header || width < 1 || height < 1 || maxValue !== 255 || bytes.length - start !== width * height * 3) {
    throw new VideoFrameError('ffmpeg gave no picture it could be asked for');
  }
  return { data: bytes.subarray(start), width, height, channels: 3 };
}

/**
 * A frame of the video at `filePath` (see above), at most `longEdge` (up to FRAME_MAX_LONG_EDGE) pixels on its long
 * side. Throws VideoFrameError when ffmpeg is missing, fails, times out or finds no video frame. An attempt that finds
 * no frame (ffmpeg succeeds with nothing to show: no key frame after the seek point, or a seek past the end) gives way
 * to the next.
 */
export async function videoFrame(filePath: string, options: { ffmpegPath: string; durationSeconds?: number; longEdge: number }): Promise<VideoFrame> {
  if (!Number.isInteger(options.longEdge) || options.longEdge < 1 || options.longEdge > FRAME_MAX_LONG_EDGE) throw new RangeError(`a frame's long edge of ${options.longEdge} pixels`);
  const seek = frameSeekSeconds(options.durationSeconds);
  const attempts: [seconds: number, keyFramesOnly: boolean][] = [[seek, true], [seek, false]];
  if (seek > 0) attempts.push([0, false]);
  for (const [seconds, keyFramesOnly] of attempts) {
    const ppm = await runFfmpeg(options.ffmpegPath, ffmpegArgs(filePath, seconds, keyFramesOnly, options.longEdge));
    if (ppm.byteLength > 0) return parsePpm(ppm);
  }
  throw new VideoFrameError('the file has no video frame ffmpeg can decode');
}

/** ffmpeg's version line ("ffmpeg version 5.1.8-0+deb12u1 ..."), or undefined when it cannot be run. */
export async function ffmpegVersion(ffmpegPath: string): Promise<string | undefined> {
  try {
    const out = await runFfmpeg(ffmpegPath, ['-hide_banner', '-version']);
    return out.toString('utf8').split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}
