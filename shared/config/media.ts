/** What the service takes in: upload limits per kind of media, resumable uploads, and the API's verification pools. */
import { int, MiB, type Env } from './parse.js';

export interface MediaSettings {
  /** Largest image upload (MAX_UPLOAD_BYTES), and the fallback for any kind without a limit of its own. */
  maxUploadBytes: number;
  /**
   * Largest video upload (MAX_UPLOAD_BYTES_VIDEO) and audio upload (MAX_UPLOAD_BYTES_AUDIO). MP4, M4V, MOV, M4A, WAV,
   * MP3 and FLAC are signed streamed, in bounded memory whatever their size (shared/c2pa/bmff-sign.ts,
   * data-hash-sign.ts); AVI, which c2pa-wasm holds whole, and WAV (RIFF: 4 GiB) have bounds of their own.
   */
  maxUploadBytesVideo: number;
  maxUploadBytesAudio: number;
  /**
   * Most media segments one fragmented MP4 rendition may have (MAX_RENDITION_FRAGMENTS): an upload with more is 413.
   * Its bytes in all count against the limit of its kind (MAX_UPLOAD_BYTES_VIDEO or _AUDIO).
   */
  maxRenditionFragments: number;
  /** A resumable upload (tus) with no byte received for this long is abandoned: 404, then swept (UPLOAD_EXPIRY_HOURS). */
  uploadExpiryHours: number;
  /** How often the scheduler removes expired resumable uploads and their bytes (UPLOAD_SWEEP_INTERVAL_MS). */
  uploadSweepIntervalMs: number;
  /**
   * Images declaring more pixels than this (MAX_IMAGE_PIXELS; width x height from the header, an SVG's declared size)
   * are refused before anything decodes them: at upload, verify and sign.
   */
  maxImagePixels: number;
  /**
   * The API's verification pool (api/media/verify-pool.ts): processes that decode, fingerprint and run c2pa-rs reads
   * off the event loop (VERIFY_POOL_SIZE), how many tasks may wait for one beyond that (VERIFY_QUEUE_LIMIT; then 503
   * verification_busy), and the memory past which a member is replaced after its task (VERIFY_RECYCLE_BYTES).
   */
  verifyPoolSize: number;
  verifyQueueLimit: number;
  verifyRecycleBytes: number;
  /**
   * Processes of the API's second pool, for uploads' pixel checks alone (UPLOAD_CHECK_POOL_SIZE), so that an upload
   * never waits behind verifications; its queue limit and recycling bound are the verification pool's.
   */
  uploadCheckPoolSize: number;
}

/**
 * Video (MP4, M4V, MOV; AVI has a bound of its own, shared/media/formats/avi.ts) and audio (M4A, WAV, MP3, FLAC) are
 * signed in bounded memory whatever their size (shared/c2pa/bmff-sign.ts, data-hash-sign.ts), so their limits are the
 * disk's and the network's: 8 GiB for video and 4 GiB for audio by default. Neither design stops anywhere below 1 TiB;
 * a format's own bound (a WAV's 4 GiB: RIFF sizes are 32-bit) is its descriptor's, refused at upload whatever the
 * setting.
 */
export function mediaSettings(env: Env): MediaSettings {
  return {
    maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 50 * MiB, 1, 2 ** 40),
    maxUploadBytesVideo: int(env, 'MAX_UPLOAD_BYTES_VIDEO', 8 * 1024 * MiB, 1, 2 ** 40),
    maxUploadBytesAudio: int(env, 'MAX_UPLOAD_BYTES_AUDIO', 4 * 1024 * MiB, 1, 2 ** 40),
    maxRenditionFragments: int(env, 'MAX_RENDITION_FRAGMENTS', 10_000, 1, 100_000),
    uploadExpiryHours: int(env, 'UPLOAD_EXPIRY_HOURS', 24, 1, 720),
    uploadSweepIntervalMs: int(env, 'UPLOAD_SWEEP_INTERVAL_MS', 15 * 60_000, 1000, 24 * 3600_000),
    // 200 MP: Samsung's 200 MP phone mode (16320 x 12240) and every medium-format back (Phase One IQ4 150 MP) fit.
    maxImagePixels: int(env, 'MAX_IMAGE_PIXELS', 200_000_000, 1, 2 ** 32),
    verifyPoolSize: int(env, 'VERIFY_POOL_SIZE', 2, 1, 64),
    verifyQueueLimit: int(env, 'VERIFY_QUEUE_LIMIT', 8, 0, 10_000),
    verifyRecycleBytes: int(env, 'VERIFY_RECYCLE_BYTES', 512 * MiB, 64 * MiB, 64 * 1024 * MiB),
    uploadCheckPoolSize: int(env, 'UPLOAD_CHECK_POOL_SIZE', 1, 1, 64),
  };
}

type UploadLimits = Pick<MediaSettings, 'maxUploadBytes' | 'maxUploadBytesVideo' | 'maxUploadBytesAudio'>;

/** The upload limit for a kind of media (images, and anything unknown, keep MAX_UPLOAD_BYTES). */
export function uploadLimitFor(config: UploadLimits, kind: string): number {
  if (kind === 'video') return config.maxUploadBytesVideo;
  if (kind === 'audio') return config.maxUploadBytesAudio;
  return config.maxUploadBytes;
}

/** The largest of the upload limits: how much an upload may stream to disk before its format is known. */
export function largestUploadLimit(config: UploadLimits): number {
  return Math.max(config.maxUploadBytes, config.maxUploadBytesVideo, config.maxUploadBytesAudio);
}
