/**
 * The one place that converts ECDSA P-384 signatures between the two encodings the service meets:
 *
 * - raw `r || s` (IEEE P1363, 48 + 48 bytes): what Azure Key Vault and the local vault return and what COSE
 *   (C2PA) carries;
 * - DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` (RFC 3279 section 2.2.3): what X.509
 *   certificates, CRLs, OCSP responses and CMS/RFC 3161 tokens carry inside their signature BIT STRING.
 *
 * DER INTEGERs are minimal two's complement: no leading 0x00 octet unless the next octet has its high bit
 * set (then exactly one 0x00 keeps the value positive). Both directions are strict: wrong lengths, zero or
 * out-of-range components, negative or non-minimal integers, long-form lengths and trailing bytes are rejected.
 */

/** Bytes in one P-384 signature component (r or s). */
export const P384_COMPONENT_BYTES = 48;
/** Bytes in a raw P-384 signature (r || s). */
export const P384_RAW_SIGNATURE_BYTES = 2 * P384_COMPONENT_BYTES;
/** Order n of the P-384 base point; r and s lie in [1, n - 1]. */
export const P384_ORDER = 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n;

export class EcdsaSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EcdsaSignatureError';
  }
}

function toBigInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function checkRange(name: string, bytes: Uint8Array): void {
  const v = toBigInt(bytes);
  if (v === 0n) throw new EcdsaSignatureError(`ECDSA ${name} is zero`);
  if (v >= P384_ORDER) throw new EcdsaSignatureError(`ECDSA ${name} is not below the P-384 group order`);
}

/** Minimal DER INTEGER (tag, length, content) for a non-negative big-endian magnitude. */
function encodeUnsignedInteger(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const digits = magnitude.subarray(start);
  const pad = digits[0]! & 0x80 ? 1 : 0;
  const out = new Uint8Array(2 + pad + digits.length);
  out[0] = 0x02;
  out[1] = pad + digits.length;
  out.set(digits, 2 + pad);
  return out;
}

/** Raw r||s (96 bytes) -> DER ECDSA-Sig-Value. */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.length !== P384_RAW_SIGNATURE_BYTES) {
    throw new EcdsaSignatureError(`raw P-384 signature must be ${P384_RAW_SIGNATURE_BYTES} bytes, got ${raw.length}`);
  }
  const r = raw.subarray(0, P384_COMPONENT_BYTES);
  const s = raw.subarray(P384_COMPONENT_BYTES);
  checkRange('r', r);
  checkRange('s', s);
  const ri = encodeUnsignedInteger(r);
  const si = encodeUnsignedInteger(s);
  // At most 102 content bytes, so the SEQUENCE length always fits the short form.
  const out = new Uint8Array(2 + ri.length + si.length);
  out[0] = 0x30;
  out[1] = ri.length + si.length;
  out.set(ri, 2);
  out.set(si, 2 + ri.length);
  return out;
}

/** Reads one DER INTEGER at `pos`; returns its magnitude (without a sign octet) and the next position. */
function readPositiveInteger(der: Uint8Array, pos: number, end: number, name: string): { magnitude: Uint8Array; next: number } {
  if (pos + 2 > end) throw new EcdsaSignatureError(`DER signature truncated before ${name}`);
  if (der[pos] !== 0x02) throw new EcdsaSignatureError(`DER signature: ${name} is not an INTEGER`);
  const len = der[pos + 1]!;
  if (len & 0x80) throw new EcdsaSignatureError(`DER signature: ${name} uses a long-form length`);
  if (len === 0) throw new EcdsaSignatureError(`DER signature: ${name} is empty`);
  const start = pos + 2;
  const next = start + len;
  if (next > end) throw new EcdsaSignatureError(`DER signature truncated inside ${name}`);
  let content = der.subarray(start, next);
  if (content[0]! & 0x80) throw new EcdsaSignatureError(`DER signature: ${name} is negative`);
  if (content[0] === 0) {
    if (content.length === 1) throw new EcdsaSignatureError(`ECDSA ${name} is zero`);
    if (!(content[1]! & 0x80)) throw new EcdsaSignatureError(`DER signature: ${name} has a non-minimal leading zero`);
    content = content.subarray(1);
  }
  if (content.length > P384_COMPONENT_BYTES) {
    throw new EcdsaSignatureError(`DER signature: ${name} is longer than ${P384_COMPONENT_BYTES} bytes`);
  }
  return { magnitude: content, next };
}

/** DER ECDSA-Sig-Value -> raw r||s (96 bytes, each component left-padded with zeros to 48 bytes). */
export function ecdsaDerToRaw(der: Uint8Array): Uint8Array {
  if (der.length < 8) throw new EcdsaSignatureError('DER signature too short');
  if (der[0] !== 0x30) throw new EcdsaSignatureError('DER signature is not a SEQUENCE');
  const len = der[1]!;
  if (len & 0x80) throw new EcdsaSignatureError('DER signature uses a long-form length (never needed for P-384)');
  if (2 + len !== der.length) throw new EcdsaSignatureError('DER signature length does not match its content');
  const r = readPositiveInteger(der, 2, der.length, 'r');
  const s = readPositiveInteger(der, r.next, der.length, 's');
  if (s.next !== der.length) throw new EcdsaSignatureError('DER signature has extra content after s');
  const raw = new Uint8Array(P384_RAW_SIGNATURE_BYTES);
  raw.set(r.magnitude, P384_COMPONENT_BYTES - r.magnitude.length);
  raw.set(s.magnitude, P384_RAW_SIGNATURE_BYTES - s.magnitude.length);
  checkRange('r', raw.subarray(0, P384_COMPONENT_BYTES));
  checkRange('s', raw.subarray(P384_COMPONENT_BYTES));
  return raw;
}
