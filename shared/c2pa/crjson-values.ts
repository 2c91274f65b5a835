/**
 * Reading values out of a detached manifest's crJSON for the binding checks (bmff-hash.ts, box-hash.ts): a sidecar is
 * anyone's bytes, so every value is checked for the shape c2pa-rs would deserialize before it is used.
 */

/** Bytes as crJSON writes them: a list of numbers, "b64'...'", or plain base64. */
export type CrJsonBytes = number[] | string;

/** The bytes a crJSON value stands for, or undefined when it is none of its forms. */
export function bytesOf(value: unknown): Buffer | undefined {
  if (Array.isArray(value)) return value.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? Buffer.from(value as number[]) : undefined;
  if (typeof value !== 'string') return undefined;
  const b64 = /^b64'([A-Za-z0-9+/]*={0,2})'$/.exec(value)?.[1] ?? (/^[A-Za-z0-9+/]*={0,2}$/.test(value) ? value : undefined);
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64');
}

/** A whole number of bytes or boxes, 0 or more. */
export const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** Absent (undefined or null), or passing `check`. */
export const optional = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || v === null || check(v);
