/**
 * Sample media of a given format and about a given size, made when a bench runs (nothing binary is kept): sharp
 * for the images, ffmpeg's lavfi sources for video and audio. A short high-bitrate piece is made once per format
 * and repeated without re-encoding (`-stream_loop -1 ... -c copy -fs`) up to the size, so a 1 GiB video takes
 * seconds, not minutes.
 */
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { extensionFor } from '../../shared/media/formats.js';
import { noisePng } from '../../test/support/noise-png.js';
import { photoLikeJpeg } from '../support/photo-jpeg.js';

const run = promisify(execFile);

export type BenchFormat = 'jpeg' | 'png' | 'webp' | 'tiff' | 'mp4' | 'mov' | 'm4a' | 'mp3' | 'wav';

export const MIME: Record<BenchFormat, SignableMimeType> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
};

export interface Sample {
  format: BenchFormat;
  mimeType: SignableMimeType;
  path: string;
  size: number;
  label: string;
}

const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { maxBuffer: 1 << 20 });

/** The piece each video/audio sample repeats: high bitrate, so large files need few repeats of it. */
const PIECES: Partial<Record<BenchFormat, string[]>> = {
  // 1080p MPEG-4 part 2 at q1: about 28 Mbit/s (35 MB per 10 s), like a camera or an editing export.
  mp4: ['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '10', '-c:v', 'mpeg4', '-q:v', '1', '-c:a', 'aac', '-shortest'],
  mov: ['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '10', '-c:v', 'mpeg4', '-q:v', '1', '-c:a', 'aac', '-shortest', '-f', 'mov'],
  m4a: ['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.5:color=pink', '-t', '60', '-ac', '2', '-c:a', 'aac', '-b:a', '320k'],
  mp3: ['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=44100:amplitude=0.5:color=pink', '-t', '60', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '320k'],
};

/**
 * A file of `format` of about `bytes` (images: the size their pixel count gives, see IMAGE_SIZES). Video and audio
 * end within one frame of the size; WAV (48 kHz, 24-bit stereo noise, as from a field recorder) is written directly.
 */
export async function makeSample(dir: string, format: BenchFormat, bytes: number): Promise<Sample> {
  const out = path.join(dir, `${format}-${bytes}.${extensionFor(MIME[format])}`);
  const mimeType = MIME[format];
  if (format === 'wav') {
    const seconds = bytes / (48_000 * 2 * 3);
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.5:color=pink', '-t', seconds.toFixed(3), '-ac', '2', '-c:a', 'pcm_s24le', out]);
  } else if (PIECES[format]) {
    const piece = path.join(dir, `piece.${extensionFor(MIME[format])}`);
    if (!(await stat(piece).catch(() => undefined))) await ffmpeg([...PIECES[format]!, piece]);
    await ffmpeg(['-stream_loop', '-1', '-i', piece, '-c', 'copy', '-fs', String(bytes), ...(format === 'mov' ? ['-f', 'mov'] : []), out]);
  } else {
    await writeFile(out, await image(format, bytes));
  }
  const size = (await stat(out)).size;
  return { format, mimeType, path: out, size, label: `${format.toUpperCase()} ${(size / 2 ** 20).toFixed(size < 2 ** 20 * 10 ? 1 : 0)} MiB` };
}

/** Images by megapixels: `bytes` picks the pixel count (a 12 MP camera JPEG is about 5 MB). */
async function image(format: BenchFormat, bytes: number): Promise<Buffer> {
  if (format === 'png') {
    // Noise: about 3 bytes per pixel, as incompressible as a PNG gets.
    const pixels = bytes / 3;
    const width = Math.round(Math.sqrt(pixels * 1.5));
    return noisePng(width, Math.round(pixels / width));
  }
  // JPEG at quality 90 is about 0.44 bytes per pixel for this content; WebP and TIFF are made from that photo.
  const pixels = format === 'tiff' ? bytes / 3 : bytes / 0.44;
  const width = Math.round(Math.sqrt(pixels * (4 / 3)));
  const photo = photoLikeJpeg(width, Math.round((width * 3) / 4), 90);
  if (format === 'jpeg') return photo;
  if (format === 'webp') return sharp(photo).webp({ quality: 90 }).toBuffer();
  return sharp(photo).tiff({ compression: 'none' }).toBuffer();
}

export const readSample = (sample: Sample) => readFile(sample.path);
