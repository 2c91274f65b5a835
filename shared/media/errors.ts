/**
 * Why a file is refused: `empty`; `unsupported`, content that is no format this service signs (415); `corrupt`, a
 * damaged or truncated file of a format it does sign (400); `too_large`, a format with a size bound of its own (SVG);
 * `too_many_pixels`, an image declaring more pixels than MAX_IMAGE_PIXELS (image-pixels.ts).
 * `mimeType` names the format when it was recognised (set by identifyMedia for structure errors).
 */
export type MediaRejection = 'empty' | 'unsupported' | 'corrupt' | 'too_large' | 'too_many_pixels';

export class MediaRejectedError extends Error {
  constructor(
    readonly reason: MediaRejection,
    message: string,
    public mimeType?: string,
  ) {
    super(message);
    this.name = 'MediaRejectedError';
  }
}

export const corrupt = (message: string) => new MediaRejectedError('corrupt', message);
