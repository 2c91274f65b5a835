/**
 * The media types the C2PA library signs and reads (the registry in shared/media/formats.ts), checked against the
 * file's own bytes.
 *
 * Why check: c2pa-rs trusts the declared type. A PNG declared as image/jpeg reads as "no manifest"
 * (JumbfNotFound) rather than failing, which would let a signed file pass as unsigned.
 */
import { identifyMediaBytes, isMediaMimeType, MEDIA_MIME_TYPES, MediaRejectedError, type MediaMimeType } from '../media/formats.js';

export const SIGNABLE_MIME_TYPES = MEDIA_MIME_TYPES;
export type SignableMimeType = MediaMimeType;

export class UnsupportedMediaTypeError extends Error {
  constructor(readonly mimeType: string, detail?: string) {
    super(`unsupported media type "${mimeType}"${detail ? `: ${detail}` : ''}; use one of ${SIGNABLE_MIME_TYPES.join(', ')}`);
    this.name = 'UnsupportedMediaTypeError';
  }
}

/** The file's bytes say one type, the caller said another. */
export class MediaTypeMismatchError extends Error {
  constructor(readonly declared: string, readonly detected: string | undefined) {
    super(`file declared as ${declared} but its content is ${detected ?? 'not a recognised media format'}`);
    this.name = 'MediaTypeMismatchError';
  }
}

/**
 * Detects the media type from the content (magic numbers, brands, a first look inside: what identifyMedia does
 * without its structure check); undefined when it is none of the registry's formats or cannot be told.
 */
export function sniffMediaType(bytes: Uint8Array): MediaMimeType | undefined {
  try {
    return identifyMediaBytes(bytes, { checkStructure: false }).mimeType;
  } catch (err) {
    if (err instanceof MediaRejectedError) return undefined;
    throw err;
  }
}

export function isSignableMimeType(value: string): value is SignableMimeType {
  return isMediaMimeType(value);
}

/** Throws unless `mimeType` is one of the registry's and the bytes are that type. */
export function assertSignableMedia(bytes: Uint8Array, mimeType: string): SignableMimeType {
  if (!isSignableMimeType(mimeType)) throw new UnsupportedMediaTypeError(mimeType);
  const detected = sniffMediaType(bytes);
  if (detected !== mimeType) throw new MediaTypeMismatchError(mimeType, detected);
  return mimeType;
}
