/**
 * Certificate serial numbers.
 *
 * Canonical text form used everywhere in the service (database, OCSP lookups, CRL entries): the lowercase
 * hex of the positive integer value, even length, without a leading "00" sign octet. Serials this service
 * issues are 16 random bytes with the first byte in 0x01..0x7f, so they are always 32 hex characters,
 * positive, 127 bits of randomness minimum, and encode as a 16-byte DER INTEGER.
 */
import { randomBytes } from 'node:crypto';

export const SERIAL_BYTES = 16;
/** RFC 5280 section 4.1.2.2: at most 20 octets. */
export const MAX_SERIAL_OCTETS = 20;

export class SerialNumberError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SerialNumberError';
  }
}

/** A fresh random positive 16-byte serial: `{ bytes, hex }` (bytes are the DER INTEGER content). */
export function randomSerial(): { bytes: Uint8Array; hex: string } {
  for (;;) {
    const bytes = new Uint8Array(randomBytes(SERIAL_BYTES));
    bytes[0]! &= 0x7f; // positive without a sign octet
    if (bytes[0] === 0) continue; // keep exactly 16 octets (no leading zero to strip)
    return { bytes, hex: Buffer.from(bytes).toString('hex') };
  }
}

/** Canonical form of a serial given as hex (any case, optional leading zeros, optional ':' separators). */
export function normalizeSerialHex(hex: string): string {
  const clean = hex.trim().replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(clean)) throw new SerialNumberError(`serial "${hex}" is not hexadecimal`);
  const value = BigInt(`0x${clean}`);
  if (value <= 0n) throw new SerialNumberError(`serial "${hex}" must be positive`);
  let out = value.toString(16);
  if (out.length % 2) out = `0${out}`;
  if (out.length / 2 > MAX_SERIAL_OCTETS) throw new SerialNumberError(`serial "${hex}" is longer than ${MAX_SERIAL_OCTETS} octets`);
  return out;
}

/** DER INTEGER content octets (minimal, with a 0x00 sign octet when the high bit is set) for a serial in hex. */
export function serialHexToIntegerBytes(hex: string): Uint8Array {
  const canonical = Buffer.from(normalizeSerialHex(hex), 'hex');
  if (canonical[0]! & 0x80) return new Uint8Array([0, ...canonical]);
  return new Uint8Array(canonical);
}

/**
 * Canonical hex for DER INTEGER content octets. A negative serial (non-conforming, but seen in the wild) is
 * returned as "-" followed by the hex of its magnitude, so it can never collide with a positive one.
 */
export function integerBytesToSerialHex(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new SerialNumberError('empty serial number');
  if (bytes[0]! & 0x80) {
    let v = 0n;
    for (const b of bytes) v = (v << 8n) | BigInt(b);
    v -= 1n << BigInt(bytes.length * 8);
    let mag = (-v).toString(16);
    if (mag.length % 2) mag = `0${mag}`;
    return `-${mag}`;
  }
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return Buffer.from(bytes.subarray(start)).toString('hex');
}
