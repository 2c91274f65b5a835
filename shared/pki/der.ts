/**
 * Minimal DER helpers shared by the PKI modules: a strict TLV reader (to take exact byte ranges out of
 * structures, e.g. a certificate's subject Name, without re-encoding them) and TLV writers (to assemble
 * signed structures around the exact TBS bytes that were signed).
 *
 * Only what the PKI code needs: single-byte tags (tag numbers < 31), definite lengths.
 */

export class DerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

/** One TLV element located inside a buffer. */
export interface Tlv {
  /** The identifier octet (class, constructed bit and tag number). */
  tag: number;
  /** Offset of the identifier octet. */
  start: number;
  /** Offset of the first content octet. */
  contentStart: number;
  /** Offset just past the last content octet. */
  end: number;
}

export const TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUMERATED: 0x0a,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Reads the TLV starting at `offset`; requires DER (minimal, definite) length octets. */
export function readTlv(buf: Uint8Array, offset = 0, limit = buf.length): Tlv {
  if (offset + 2 > limit) throw new DerError('truncated DER element');
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte DER tags are not supported');
  let pos = offset + 1;
  const first = buf[pos++]!;
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const count = first & 0x7f;
    if (count === 0) throw new DerError('indefinite length is not DER');
    if (count > 4) throw new DerError('DER length too large');
    if (pos + count > limit) throw new DerError('truncated DER length');
    if (buf[pos] === 0) throw new DerError('non-minimal DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[pos++]!;
    if (length < 0x80) throw new DerError('non-minimal DER length');
  }
  const end = pos + length;
  if (end > limit) throw new DerError('DER element runs past its container');
  return { tag, start: offset, contentStart: pos, end };
}

/** The direct children of a constructed element. */
export function readChildren(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  let pos = parent.contentStart;
  while (pos < parent.end) {
    const child = readTlv(buf, pos, parent.end);
    out.push(child);
    pos = child.end;
  }
  return out;
}

/** Parses `buf` as exactly one TLV with nothing after it. */
export function readSingle(buf: Uint8Array, expectedTag?: number): Tlv {
  const tlv = readTlv(buf, 0);
  if (tlv.end !== buf.length) throw new DerError('trailing bytes after DER element');
  if (expectedTag !== undefined && tlv.tag !== expectedTag) {
    throw new DerError(`expected DER tag 0x${expectedTag.toString(16)}, got 0x${tlv.tag.toString(16)}`);
  }
  return tlv;
}

export function tlvBytes(buf: Uint8Array, tlv: Tlv): Uint8Array {
  return buf.subarray(tlv.start, tlv.end);
}

export function contentBytes(buf: Uint8Array, tlv: Tlv): Uint8Array {
  return buf.subarray(tlv.contentStart, tlv.end);
}

export function encodeLength(length: number): Uint8Array {
  if (!Number.isSafeInteger(length) || length < 0) throw new DerError(`invalid DER length ${length}`);
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** Octets taken by a TLV's identifier and length octets when its content is `length` octets long. */
export function headerLength(length: number): number {
  if (length < 0x80) return 2;
  let octets = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets++;
  return 2 + octets;
}

/**
 * Writes a TLV's identifier and length octets at `offset` (room checked by the caller: headerLength) and returns
 * the offset of the first content octet. For writers that fill one preallocated buffer instead of concatenating
 * many small ones (a CRL with 100,000 entries).
 */
export function writeHeader(buf: Uint8Array, offset: number, tag: number, length: number): number {
  if (!Number.isSafeInteger(length) || length < 0) throw new DerError(`invalid DER length ${length}`);
  buf[offset++] = tag;
  if (length < 0x80) {
    buf[offset++] = length;
    return offset;
  }
  const octets = headerLength(length) - 2;
  buf[offset++] = 0x80 | octets;
  for (let i = octets - 1; i >= 0; i--) {
    buf[offset + i] = length % 256;
    length = Math.floor(length / 256);
  }
  return offset + octets;
}

/** UTCTime for the years 1950..2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5 / 5.1.2.4). */
function usesUtcTime(year: number): boolean {
  return year >= 1950 && year <= 2049;
}

/** Octets of the X.509 Time TLV for `date` (15 for UTCTime, 17 for GeneralizedTime). */
export function timeLength(date: Date): number {
  return usesUtcTime(date.getUTCFullYear()) ? 15 : 17;
}

function writeDigits(buf: Uint8Array, offset: number, value: number, digits: number): number {
  for (let i = digits - 1; i >= 0; i--) {
    buf[offset + i] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  }
  return offset + digits;
}

/**
 * Writes an X.509 Time (RFC 5280 4.1.2.5: UTCTime YYMMDDHHMMSSZ through 2049, GeneralizedTime YYYYMMDDHHMMSSZ
 * from 2050; whole seconds, milliseconds dropped) at `offset`; returns the offset after it.
 */
export function writeTime(buf: Uint8Array, offset: number, date: Date): number {
  const year = date.getUTCFullYear();
  if (!Number.isFinite(year) || year < 0 || year > 9999) throw new DerError('time outside the years 0000..9999');
  const utc = usesUtcTime(year);
  buf[offset++] = utc ? TAG.UTC_TIME : TAG.GENERALIZED_TIME;
  buf[offset++] = utc ? 13 : 15;
  offset = utc ? writeDigits(buf, offset, year % 100, 2) : writeDigits(buf, offset, year, 4);
  offset = writeDigits(buf, offset, date.getUTCMonth() + 1, 2);
  offset = writeDigits(buf, offset, date.getUTCDate(), 2);
  offset = writeDigits(buf, offset, date.getUTCHours(), 2);
  offset = writeDigits(buf, offset, date.getUTCMinutes(), 2);
  offset = writeDigits(buf, offset, date.getUTCSeconds(), 2);
  buf[offset++] = 0x5a; // Z
  return offset;
}

const UTC_TIME_TEXT = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/;
const GENERALIZED_TIME_TEXT = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d*[1-9]))?Z$/;

/**
 * Reads a UTCTime (YYMMDDHHMMSSZ; YY below 50 is 20YY, RFC 5280 4.1.2.5.1) or GeneralizedTime (YYYYMMDDHHMMSS[.f]Z)
 * TLV; throws DerError for any other tag or form.
 */
export function readTime(buf: Uint8Array, tlv: Tlv): Date {
  const text = Buffer.from(buf.buffer, buf.byteOffset + tlv.contentStart, tlv.end - tlv.contentStart).toString('latin1');
  let m: RegExpExecArray | null;
  let year: number;
  if (tlv.tag === TAG.UTC_TIME && (m = UTC_TIME_TEXT.exec(text))) {
    const yy = Number(m[1]);
    year = yy < 50 ? 2000 + yy : 1900 + yy;
  } else if (tlv.tag === TAG.GENERALIZED_TIME && (m = GENERALIZED_TIME_TEXT.exec(text))) {
    year = Number(m[1]);
  } else {
    throw new DerError(`not a DER UTCTime or GeneralizedTime (tag 0x${tlv.tag.toString(16)})`);
  }
  const [month, day, hours, minutes, seconds] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  const date = new Date(Date.UTC(2000, month - 1, day, hours, minutes, seconds, ms));
  date.setUTCFullYear(year); // Date.UTC maps the years 0..99 to 1900..1999
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hours > 23 || minutes > 59 || seconds > 59) {
    throw new DerError(`invalid date in DER time "${text}"`);
  }
  return date;
}

/** The X.509 Time TLV for `date` (see writeTime). */
export function encodeTime(date: Date): Uint8Array {
  const out = new Uint8Array(timeLength(date));
  writeTime(out, 0, date);
  return out;
}

/** Encodes one TLV whose content is the concatenation of `content`. */
export function encodeTlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concatBytes(content);
  return concatBytes([Uint8Array.of(tag), encodeLength(body.length), body]);
}

/** A copy of the bytes as a stand-alone ArrayBuffer (what @peculiar/asn1-schema wants). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.length);
  new Uint8Array(out).set(bytes);
  return out;
}

export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  return Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('hex');
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Minimal DER INTEGER (full TLV) for a non-negative bigint. */
export function encodeUnsignedInteger(value: bigint): Uint8Array {
  if (value < 0n) throw new DerError('negative INTEGER not supported here');
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let content: Uint8Array = Uint8Array.from(Buffer.from(hex, 'hex'));
  if (content[0]! & 0x80) content = concatBytes([Uint8Array.of(0), content]);
  return encodeTlv(TAG.INTEGER, content);
}

/** Value of a DER INTEGER TLV that must be non-negative and minimally encoded. */
export function decodeUnsignedInteger(tlvDer: Uint8Array): bigint {
  const tlv = readSingle(tlvDer, TAG.INTEGER);
  const c = contentBytes(tlvDer, tlv);
  if (c.length === 0) throw new DerError('empty INTEGER');
  if (c[0]! & 0x80) throw new DerError('negative INTEGER');
  if (c.length > 1 && c[0] === 0 && !(c[1]! & 0x80)) throw new DerError('non-minimal INTEGER');
  let v = 0n;
  for (const b of c) v = (v << 8n) | BigInt(b);
  return v;
}
