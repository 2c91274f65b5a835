/**
 * The ISCC Image-Code's text and number forms (iscc-core, iscc_core/codec.py): the header (MainType CONTENT, SubType
 * IMAGE, version 0, length) and body in RFC 4648 base32, `ISCC:`-prefixed; the Hamming distance between two codes;
 * and the signed 64-bit integer a Postgres bigint column holds.
 */

export interface ImageCode {
  /** `ISCC:` + base32 of header and body, e.g. `ISCC:EEA4GQZQTY6J5DTH` for 64 bits. */
  iscc: string;
  /** The body (the similarity hash): bits/8 bytes, most significant bit first. */
  hash: Buffer;
  bits: number;
}

const MAIN_TYPE_CONTENT = 2;
const SUB_TYPE_IMAGE = 1;
const VERSION_0 = 0;

const B32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (the ISCC text encoding). */
export function base32Encode(data: Uint8Array): string {
  let out = '';
  let acc = 0;
  let nbits = 0;
  for (const byte of data) {
    acc = (acc << 8) | byte;
    nbits += 8;
    while (nbits >= 5) {
      nbits -= 5;
      out += B32_ALPHABET[(acc >>> nbits) & 31];
    }
    acc &= (1 << nbits) - 1;
  }
  if (nbits > 0) out += B32_ALPHABET[(acc << (5 - nbits)) & 31];
  return out;
}

/** RFC 4648 base32 without padding, case-insensitive; trailing partial bits are dropped. */
export function base32Decode(text: string): Buffer {
  const out: number[] = [];
  let acc = 0;
  let nbits = 0;
  for (const ch of text.toUpperCase()) {
    const v = B32_ALPHABET.indexOf(ch);
    if (v < 0) throw new Error(`invalid base32 character ${JSON.stringify(ch)}`);
    acc = ((acc << 5) | v) & 0xffff;
    nbits += 5;
    if (nbits >= 8) {
      nbits -= 8;
      out.push((acc >>> nbits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** Variable-length nibble encoding of one header field (0..4679), as a string of bits. */
function encodeVarnibble(n: number): string {
  const bin = (v: number, width: number) => v.toString(2).padStart(width, '0');
  if (n >= 0 && n < 8) return bin(n, 4);
  if (n >= 8 && n < 72) return '10' + bin(n - 8, 6);
  if (n >= 72 && n < 584) return '110' + bin(n - 72, 9);
  if (n >= 584 && n < 4680) return '1110' + bin(n - 584, 12);
  throw new RangeError('varnibble value must be between 0 and 4679');
}

function decodeVarnibble(bits: string, pos: number): [value: number, next: number] {
  const take = (from: number, len: number) => {
    if (from + len > bits.length) throw new Error('truncated ISCC header');
    return parseInt(bits.slice(from, from + len), 2);
  };
  if (bits[pos] === '0') return [take(pos, 4), pos + 4];
  if (bits[pos + 1] === '0') return [take(pos + 2, 6) + 8, pos + 8];
  if (bits[pos + 2] === '0') return [take(pos + 3, 9) + 72, pos + 12];
  if (bits[pos + 3] === '0') return [take(pos + 4, 12) + 584, pos + 16];
  throw new Error('invalid ISCC header');
}

/** Throws unless `bits` is an Image-Code length: a multiple of 32 from 32 to 256. */
export function checkBits(bits: number): void {
  if (!Number.isInteger(bits) || bits < 32 || bits > 256 || bits % 32 !== 0) {
    throw new RangeError(`ISCC Image-Code length must be a multiple of 32 from 32 to 256 bits, not ${bits}`);
  }
}

/** `ISCC:` + base32(header + body) for an Image-Code body of `bits` bits (longer bodies are truncated). */
export function encodeImageCode(hash: Uint8Array, bits = hash.length * 8): string {
  checkBits(bits);
  if (hash.length * 8 < bits) throw new RangeError(`an Image-Code of ${bits} bits needs ${bits / 8} bytes of hash`);
  let header = [MAIN_TYPE_CONTENT, SUB_TYPE_IMAGE, VERSION_0, bits / 32 - 1].map(encodeVarnibble).join('');
  if (header.length % 8) header += '0000';
  const headerBytes = Buffer.alloc(header.length / 8);
  for (let i = 0; i < headerBytes.length; i++) headerBytes[i] = parseInt(header.slice(i * 8, i * 8 + 8), 2);
  return 'ISCC:' + base32Encode(Buffer.concat([headerBytes, hash.subarray(0, bits / 8)]));
}

/** Parses an Image-Code (`ISCC:EEA...`, prefix optional, any case); throws for any other ISCC unit. */
export function decodeImageCode(iscc: string): ImageCode {
  const text = iscc.trim().replace(/^iscc:/i, '').replace(/-/g, '');
  const raw = base32Decode(text);
  const bitString = [...raw].map((b) => b.toString(2).padStart(8, '0')).join('');
  let pos = 0;
  const fields: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [value, next] = decodeVarnibble(bitString, pos);
    fields.push(value);
    pos = next;
  }
  const [mainType, subType, version, length] = fields as [number, number, number, number];
  if (mainType !== MAIN_TYPE_CONTENT || subType !== SUB_TYPE_IMAGE) {
    throw new Error(`not an ISCC Image-Code (MainType ${mainType}, SubType ${subType})`);
  }
  if (version !== VERSION_0) throw new Error(`unsupported ISCC Image-Code version ${version}`);
  if (pos % 8) pos += 4; // nibble padding after an odd number of header nibbles
  const bits = (length + 1) * 32;
  checkBits(bits);
  const body = raw.subarray(pos / 8);
  if (body.length !== bits / 8) throw new Error(`ISCC Image-Code body is ${body.length * 8} bits, its header says ${bits}`);
  const hash = Buffer.from(body);
  return { iscc: encodeImageCode(hash, bits), hash, bits };
}

/** A code body as bytes, as a bigint (signed or unsigned 64-bit), or as an ISCC Image-Code string. */
export type ImageCodeLike = Uint8Array | bigint | string;

function toBytes(code: ImageCodeLike): Uint8Array {
  if (typeof code === 'bigint') return int64ToHash(code);
  if (typeof code === 'string') return decodeImageCode(code).hash;
  return code;
}

const POPCOUNT8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let v = i; v; v >>= 1) c += v & 1;
  return c;
});

/** Number of differing bits between two codes of the same length (bodies, 64-bit integers or ISCC strings). */
export function hammingDistance(a: ImageCodeLike, b: ImageCodeLike): number {
  const x = toBytes(a);
  const y = toBytes(b);
  if (x.length !== y.length) throw new RangeError(`cannot compare a ${x.length * 8}-bit code with a ${y.length * 8}-bit code`);
  let d = 0;
  for (let i = 0; i < x.length; i++) d += POPCOUNT8[x[i]! ^ y[i]!]!;
  return d;
}

/** The 64-bit body as an unsigned integer (0 .. 2^64-1), most significant bit first. */
export function hashToBigInt(hash: Uint8Array): bigint {
  if (hash.length !== 8) throw new RangeError('a 64-bit code body is 8 bytes');
  return Buffer.from(hash.buffer, hash.byteOffset, 8).readBigUInt64BE(0);
}

/** The 64-bit body as a signed 64-bit integer (two's complement): the value a Postgres bigint column holds. */
export function hashToInt64(hash: Uint8Array): bigint {
  return BigInt.asIntN(64, hashToBigInt(hash));
}

/** 8-byte body from a signed or unsigned 64-bit integer (bigint, or its decimal string as Postgres returns it). */
export function int64ToHash(value: bigint | string | number): Buffer {
  const v = typeof value === 'bigint' ? value : BigInt(value);
  if (v < -(1n << 63n) || v >= 1n << 64n) throw new RangeError('value does not fit in 64 bits');
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt.asUintN(64, v));
  return out;
}

/** Signed int64 decimal string (for a Postgres bigint parameter) of a 64-bit Image-Code (ISCC string or body). */
export function imageCodeToInt64String(code: string | Uint8Array): string {
  const hash = typeof code === 'string' ? decodeImageCode(code).hash : code;
  return hashToInt64(hash).toString();
}

/** The 64-bit ISCC Image-Code string of a stored signed (or unsigned) 64-bit integer. */
export function int64ToImageCode(value: bigint | string | number): string {
  return encodeImageCode(int64ToHash(value), 64);
}
