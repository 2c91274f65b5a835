import type { Logger } from 'pino';
import { ffmpegVersion } from '../shared/media/video-frame.js';

/** Says once, at start, whether video will get claim thumbnails here (rather than in a warning per job). */
export async function logVideoThumbnails(ffmpegPath: string | undefined, logger: Logger): Promise<void> {
  if (!ffmpegPath) return logger.info('FFMPEG_PATH=off: video is signed without claim thumbnails');
  const version = await ffmpegVersion(ffmpegPath);
  if (version) logger.info({ ffmpeg: version }, 'video claim thumbnails: frames taken by ffmpeg');
  else logger.warn({ ffmpegPath }, 'ffmpeg cannot be run (FFMPEG_PATH): video is signed without claim thumbnails; install Debian\'s ffmpeg or set FFMPEG_PATH');
}
