/**
 * The media types the C2PA library signs and reads, checked against the file's own bytes.
 *
 * Why check: c2pa-rs trusts the declared type. A PNG declared as image/jpeg reads as "no manifest"
 * (JumbfNotFound) rather than failing, which would let a signed file pass as unsigned.
 */

export const SIGNABLE_MIME_TYPES = ['image/jpeg', 'image/png'] as const;
export type SignableMimeType = (typeof SIGNABLE_MIME_TYPES)[number];

export class UnsupportedMediaTypeError extends Error {
  constructor(readonly mimeType: string, detail?: string) {
    super(`unsupported media type "${mimeType}"${detail ? `: ${detail}` : ''}; use ${SIGNABLE_MIME_TYPES.join(' or ')}`);
    this.name = 'UnsupportedMediaTypeError';
  }
}

/** The file's bytes say one type, the caller said another. */
export class MediaTypeMismatchError extends Error {
  constructor(readonly declared: string, readonly detected: string | undefined) {
    super(`file declared as ${declared} but its content is ${detected ?? 'not a recognised image'}`);
    this.name = 'MediaTypeMismatchError';
  }
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], offset = 0) =>
  bytes.length >= offset + prefix.length && prefix.every((b, i) => bytes[offset + i] === b);

/** Detects the image type from magic bytes; undefined when it is none of the ones below. */
export function sniffMediaType(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

export function isSignableMimeType(value: string): value is SignableMimeType {
  return (SIGNABLE_MIME_TYPES as readonly string[]).includes(value);
}

/** Throws unless `mimeType` is JPEG or PNG and the bytes are that type. */
export function assertSignableMedia(bytes: Uint8Array, mimeType: string): SignableMimeType {
  if (!isSignableMimeType(mimeType)) throw new UnsupportedMediaTypeError(mimeType);
  const detected = sniffMediaType(bytes);
  if (detected !== mimeType) throw new MediaTypeMismatchError(mimeType, detected);
  return mimeType;
}
