import { ServiceError, type ErrorKind } from '../errors.js';

/**
 * Why a file is refused: `empty`; `unsupported`, content that is no format this service signs (415); `corrupt`, a
 * damaged or truncated file of a format it does sign (400); `too_large`, a format with a size bound of its own (SVG);
 * `too_many_pixels`, an image declaring more pixels than MAX_IMAGE_PIXELS (image-pixels.ts); `too_complex`, a file of
 * more boxes, or boxes nested deeper, than the service reads (an ISO BMFF file's MAX_BMFF_BOXES, MAX_BMFF_DEPTH).
 * `mimeType` names the format when it was recognised (set by identifyMedia for structure errors).
 */
export type MediaRejection = 'empty' | 'unsupported' | 'corrupt' | 'too_large' | 'too_many_pixels' | 'too_complex';

/**
 * Each reason's kind and outward code: content of no supported format is unsupported (HTTP 415); an empty or damaged
 * file invalid (400; corrupt_image for images, corrupt_media for video, audio and a file whose format cannot be told);
 * an SVG over its bound too large (413); an image declaring more than MAX_IMAGE_PIXELS unprocessable (422: the request
 * is within the size limits, the image it describes is not; a sign job fails at once, no retry can help), and so is a
 * file of more boxes than the service reads (422 media_too_complex).
 */
const OUTWARD: Record<MediaRejection, [ErrorKind, string]> = {
  empty: ['invalid', 'empty_file'],
  unsupported: ['unsupported', 'unsupported_media_type'],
  corrupt: ['invalid', 'corrupt_media'],
  too_large: ['too_large', 'payload_too_large'],
  too_many_pixels: ['unprocessable', 'image_too_large'],
  too_complex: ['unprocessable', 'media_too_complex'],
};

export class MediaRejectedError extends ServiceError {
  constructor(
    readonly reason: MediaRejection,
    message: string,
    readonly mimeType?: string,
  ) {
    const [kind, code] = OUTWARD[reason];
    super(kind, reason === 'corrupt' && mimeType?.startsWith('image/') ? 'corrupt_image' : code, message);
    this.name = 'MediaRejectedError';
  }
}

export const corrupt = (message: string) => new MediaRejectedError('corrupt', message);
