/**
 * How an image's ISCC fingerprint reaches its 32x32 pixels (FINGERPRINT_MODE). `exact`: the whole image decoded, then
 * Pillow's bicubic (the reference SDK's pixels). `fast`: a JPEG is decoded by libjpeg at 1/2, 1/4 or 1/8 scale in the
 * DCT domain, then Pillow's bicubic from that smaller image (still its anti-aliased kernel); other formats as
 * `exact`. The two differ by a few bits at most (bench/softbinding prints how many). Its own module: the
 * configuration reads it without loading the image decoder.
 */
export const FINGERPRINT_MODES = ['fast', 'exact'] as const;
export type FingerprintMode = (typeof FINGERPRINT_MODES)[number];
