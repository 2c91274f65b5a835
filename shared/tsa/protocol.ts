/**
 * RFC 3161 (Time-Stamp Protocol) messages: TimeStampReq and TimeStampResp, read and written as DER.
 *
 * Read by hand with the strict DER reader of shared/pki/der.ts rather than a schema library, because the
 * server must tell *why* a request is refused (RFC 3161 section 2.4.2 PKIFailureInfo: badAlg for a hash it
 * does not accept, badDataFormat for anything malformed, ...), and must echo the request's MessageImprint and
 * nonce byte for byte, as the RFC requires ("MUST have the same value as the similar field in TimeStampReq").
 *
 *   TimeStampReq ::= SEQUENCE { version INTEGER { v1(1) }, messageImprint MessageImprint,
 *                               reqPolicy TSAPolicyId OPTIONAL, nonce INTEGER OPTIONAL,
 *                               certReq BOOLEAN DEFAULT FALSE, extensions [0] IMPLICIT Extensions OPTIONAL }
 *   MessageImprint ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, hashedMessage OCTET STRING }
 *   TimeStampResp ::= SEQUENCE { status PKIStatusInfo, timeStampToken TimeStampToken OPTIONAL }
 *   PKIStatusInfo ::= SEQUENCE { status PKIStatus, statusString PKIFreeText OPTIONAL, failInfo PKIFailureInfo OPTIONAL }
 */
import { ServiceError, type ErrorKind } from '../errors.js';
import { DerError, TAG, contentBytes, encodeTlv, readChildren, readSingle, tlvBytes, type Tlv } from '../pki/der.js';

/** HTTP media types of RFC 3161 section 3.4. */
export const TIMESTAMP_QUERY_TYPE = 'application/timestamp-query';
export const TIMESTAMP_REPLY_TYPE = 'application/timestamp-reply';

/** Hash algorithms accepted in a message imprint. SHA-1 and MD5 are refused (badAlg): too weak to stamp. */
export const TSA_HASH_ALGORITHMS = {
  sha256: { oid: '2.16.840.1.101.3.4.2.1', length: 32 },
  sha384: { oid: '2.16.840.1.101.3.4.2.2', length: 48 },
  sha512: { oid: '2.16.840.1.101.3.4.2.3', length: 64 },
} as const;
export type TsaHashAlgorithm = keyof typeof TSA_HASH_ALGORITHMS;

const HASH_BY_OID = new Map<string, TsaHashAlgorithm>(
  Object.entries(TSA_HASH_ALGORITHMS).map(([name, a]) => [a.oid, name as TsaHashAlgorithm]),
);

/** RFC 3161 PKIFailureInfo bits. */
export const PKI_FAILURE_BITS = {
  badAlg: 0,
  badRequest: 2,
  badDataFormat: 5,
  timeNotAvailable: 14,
  unacceptedPolicy: 15,
  unacceptedExtension: 16,
  addInfoNotAvailable: 17,
  systemFailure: 25,
} as const;
export type PkiFailureInfo = keyof typeof PKI_FAILURE_BITS;

/** PKIStatus values (RFC 3161 section 2.4.2). */
export const PKI_STATUS = {
  granted: 0,
  grantedWithMods: 1,
  rejection: 2,
  waiting: 3,
  revocationWarning: 4,
  revocationNotification: 5,
} as const;
export type PkiStatusName = keyof typeof PKI_STATUS;

/** Longest nonce accepted (octets). OpenSSL sends 8; RFC 3161 sets no bound, a DoS-minded server must. */
export const MAX_NONCE_BYTES = 64;

const TAG_BOOLEAN = 0x01;
const TAG_UTF8_STRING = 0x0c;
const TAG_CONTEXT_0_CONSTRUCTED = 0xa0;

/** The kind of a refused request by its failure info (RFC 3161 tells apart what shares a kind, e.g. badAlg and unacceptedExtension). */
const REQUEST_ERROR_KINDS: Record<PkiFailureInfo, ErrorKind> = {
  badAlg: 'unsupported',
  badRequest: 'invalid',
  badDataFormat: 'invalid',
  timeNotAvailable: 'unavailable',
  unacceptedPolicy: 'unsupported',
  unacceptedExtension: 'unsupported',
  addInfoNotAvailable: 'unsupported',
  systemFailure: 'internal',
};

/** A request the TSA refuses, with the failure info to send back. */
export class TimeStampRequestError extends ServiceError {
  constructor(readonly failInfo: PkiFailureInfo, message: string) {
    super(REQUEST_ERROR_KINDS[failInfo], 'timestamp_request_refused', message);
    this.name = 'TimeStampRequestError';
  }
}

export interface TimeStampRequest {
  hashAlgorithm: TsaHashAlgorithm;
  hashedMessage: Uint8Array;
  /** The MessageImprint TLV exactly as received (echoed into TSTInfo). */
  messageImprintDer: Uint8Array;
  reqPolicy?: string;
  /** The nonce INTEGER TLV exactly as received (echoed into TSTInfo). */
  nonceDer?: Uint8Array;
  /** Whether the reply must carry the TSA's certificate. */
  certReq: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Small DER pieces

/** DER OBJECT IDENTIFIER TLV for a dotted OID. */
export function encodeOid(oid: string): Uint8Array {
  const arcs = oid.split('.').map((a) => BigInt(a));
  if (arcs.length < 2) throw new DerError(`OID "${oid}" needs at least two arcs`);
  const out: number[] = [];
  const push = (v: bigint) => {
    const bytes = [Number(v & 0x7fn)];
    for (let n = v >> 7n; n > 0n; n >>= 7n) bytes.unshift(Number(n & 0x7fn) | 0x80);
    out.push(...bytes);
  };
  push(arcs[0]! * 40n + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return encodeTlv(TAG.OID, Uint8Array.from(out));
}

/** Dotted form of OBJECT IDENTIFIER content octets; throws DerError on a malformed encoding. */
export function decodeOid(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new DerError('empty OBJECT IDENTIFIER');
  const arcs: bigint[] = [];
  let v = 0n;
  let started = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (!started && b === 0x80) throw new DerError('non-minimal OBJECT IDENTIFIER arc');
    started = true;
    v = (v << 7n) | BigInt(b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0n;
      started = false;
    } else if (i === bytes.length - 1) {
      throw new DerError('truncated OBJECT IDENTIFIER');
    }
  }
  const first = arcs[0]!;
  const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
  return [...head, ...arcs.slice(1)].join('.');
}

/** AlgorithmIdentifier with parameters absent (RFC 5754 for the SHA-2 family). */
export function algorithmIdentifier(oid: string): Uint8Array {
  return encodeTlv(TAG.SEQUENCE, encodeOid(oid));
}

/** DER INTEGER TLV from its content octets (already minimal two's complement). */
export function integerTlv(content: Uint8Array): Uint8Array {
  return encodeTlv(TAG.INTEGER, content);
}

/** PKIFailureInfo as a DER named-bit BIT STRING with the one bit set (trailing zero bits removed). */
export function encodeFailureInfo(failure: PkiFailureInfo): Uint8Array {
  const bit = PKI_FAILURE_BITS[failure];
  const octets = (bit >> 3) + 1;
  const bits = new Uint8Array(octets);
  bits[bit >> 3] = 0x80 >> (bit & 7);
  const unused = 7 - (bit & 7);
  return encodeTlv(TAG.BIT_STRING, Uint8Array.of(unused), bits);
}

/** The names of the bits set in a PKIFailureInfo BIT STRING content (unused-bits octet first). */
export function decodeFailureInfo(content: Uint8Array): PkiFailureInfo[] {
  const bits = content.subarray(1);
  return (Object.entries(PKI_FAILURE_BITS) as [PkiFailureInfo, number][])
    .filter(([, bit]) => ((bits[bit >> 3] ?? 0) & (0x80 >> (bit & 7))) !== 0)
    .map(([name]) => name);
}

function derFail(err: unknown, what: string): never {
  if (err instanceof TimeStampRequestError) throw err;
  if (err instanceof DerError) throw new TimeStampRequestError('badDataFormat', `${what}: ${err.message}`);
  throw err;
}

// ---------------------------------------------------------------------------------------------------------
// TimeStampReq

function readMessageImprint(der: Uint8Array, tlv: Tlv): Pick<TimeStampRequest, 'hashAlgorithm' | 'hashedMessage' | 'messageImprintDer'> {
  if (tlv.tag !== TAG.SEQUENCE) throw new TimeStampRequestError('badDataFormat', 'messageImprint is not a SEQUENCE');
  const [alg, hashed, ...extra] = readChildren(der, tlv);
  if (!alg || !hashed || extra.length) throw new TimeStampRequestError('badDataFormat', 'messageImprint must hold an algorithm and a hash');
  if (alg.tag !== TAG.SEQUENCE) throw new TimeStampRequestError('badDataFormat', 'hashAlgorithm is not an AlgorithmIdentifier');
  const [oidTlv, params, ...more] = readChildren(der, alg);
  if (!oidTlv || oidTlv.tag !== TAG.OID || more.length) throw new TimeStampRequestError('badDataFormat', 'hashAlgorithm is not an AlgorithmIdentifier');
  const oid = decodeOid(contentBytes(der, oidTlv));
  const hashAlgorithm = HASH_BY_OID.get(oid);
  if (!hashAlgorithm) throw new TimeStampRequestError('badAlg', `hash algorithm ${oid} is not accepted (use SHA-256, SHA-384 or SHA-512)`);
  // Parameters: absent (RFC 5754) or NULL (what OpenSSL sends); anything else is not SHA-2 as we know it.
  if (params && !(params.tag === TAG.NULL && params.end === params.contentStart)) {
    throw new TimeStampRequestError('badAlg', `hash algorithm ${oid} carries unexpected parameters`);
  }
  if (hashed.tag !== TAG.OCTET_STRING) throw new TimeStampRequestError('badDataFormat', 'hashedMessage is not an OCTET STRING');
  const hashedMessage = contentBytes(der, hashed).slice();
  const expected = TSA_HASH_ALGORITHMS[hashAlgorithm].length;
  if (hashedMessage.length !== expected) {
    throw new TimeStampRequestError('badDataFormat', `a ${hashAlgorithm} hash is ${expected} bytes, got ${hashedMessage.length}`);
  }
  return { hashAlgorithm, hashedMessage, messageImprintDer: tlvBytes(der, tlv).slice() };
}

/**
 * Reads a DER TimeStampReq. Throws TimeStampRequestError (with the failure info to answer) for anything it
 * cannot accept; never another error.
 */
export function parseTimeStampRequest(der: Uint8Array): TimeStampRequest {
  if (der.length === 0) throw new TimeStampRequestError('badDataFormat', 'empty request body');
  try {
    const top = readSingle(der);
    if (top.tag !== TAG.SEQUENCE) throw new TimeStampRequestError('badDataFormat', 'not a TimeStampReq (expected a SEQUENCE)');
    const children = readChildren(der, top);
    const [version, imprint, ...rest] = children;
    if (!version || version.tag !== TAG.INTEGER) throw new TimeStampRequestError('badDataFormat', 'TimeStampReq has no version');
    const v = contentBytes(der, version);
    if (v.length !== 1 || v[0] !== 1) throw new TimeStampRequestError('badDataFormat', 'unsupported TimeStampReq version (only v1)');
    if (!imprint) throw new TimeStampRequestError('badDataFormat', 'TimeStampReq has no messageImprint');
    const request: TimeStampRequest = { ...readMessageImprint(der, imprint), certReq: false };

    // The optional fields, each at most once and in schema order.
    const order = [TAG.OID, TAG.INTEGER, TAG_BOOLEAN, TAG_CONTEXT_0_CONSTRUCTED];
    let position = 0;
    for (const field of rest) {
      const at = order.indexOf(field.tag as (typeof order)[number]);
      if (at < position) throw new TimeStampRequestError('badDataFormat', `unexpected element (tag 0x${field.tag.toString(16)}) in TimeStampReq`);
      position = at + 1;
      const content = contentBytes(der, field);
      switch (field.tag) {
        case TAG.OID:
          request.reqPolicy = decodeOid(content);
          break;
        case TAG.INTEGER:
          if (content.length === 0 || content.length > MAX_NONCE_BYTES) {
            throw new TimeStampRequestError('badDataFormat', `nonce must be 1 to ${MAX_NONCE_BYTES} octets`);
          }
          request.nonceDer = tlvBytes(der, field).slice();
          break;
        case TAG_BOOLEAN:
          if (content.length !== 1) throw new TimeStampRequestError('badDataFormat', 'certReq is not a BOOLEAN');
          request.certReq = content[0] !== 0;
          break;
        default:
          // We implement no extensions, so any requested one is unaccepted (RFC 3161 section 2.4.2).
          throw new TimeStampRequestError('unacceptedExtension', 'this TSA supports no request extensions');
      }
    }
    return request;
  } catch (err) {
    return derFail(err, 'malformed TimeStampReq');
  }
}

export interface TimeStampRequestInput {
  hashAlgorithm: TsaHashAlgorithm;
  hashedMessage: Uint8Array;
  /** Content octets of the nonce INTEGER (minimal two's complement; keep the first octet below 0x80). */
  nonce?: Uint8Array;
  certReq?: boolean;
  reqPolicy?: string;
}

/** A DER TimeStampReq (what `openssl ts -query` writes). */
export function buildTimeStampRequest(input: TimeStampRequestInput): Uint8Array {
  const alg = TSA_HASH_ALGORITHMS[input.hashAlgorithm];
  if (input.hashedMessage.length !== alg.length) throw new Error(`a ${input.hashAlgorithm} hash is ${alg.length} bytes`);
  const parts: Uint8Array[] = [
    integerTlv(Uint8Array.of(1)),
    encodeTlv(TAG.SEQUENCE, algorithmIdentifier(alg.oid), encodeTlv(TAG.OCTET_STRING, input.hashedMessage)),
  ];
  if (input.reqPolicy) parts.push(encodeOid(input.reqPolicy));
  if (input.nonce) parts.push(integerTlv(input.nonce));
  if (input.certReq) parts.push(encodeTlv(TAG_BOOLEAN, Uint8Array.of(0xff)));
  return encodeTlv(TAG.SEQUENCE, ...parts);
}

// ---------------------------------------------------------------------------------------------------------
// TimeStampResp

/** `granted` with the token. */
export function encodeGrantedResponse(tokenDer: Uint8Array): Uint8Array {
  return encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, integerTlv(Uint8Array.of(PKI_STATUS.granted))), tokenDer);
}

/** `rejection` with one failure info bit and a human-readable statusString. */
export function encodeRejection(failure: PkiFailureInfo, text: string): Uint8Array {
  const statusString = encodeTlv(TAG.SEQUENCE, encodeTlv(TAG_UTF8_STRING, new TextEncoder().encode(text.slice(0, 200))));
  return encodeTlv(
    TAG.SEQUENCE,
    encodeTlv(TAG.SEQUENCE, integerTlv(Uint8Array.of(PKI_STATUS.rejection)), statusString, encodeFailureInfo(failure)),
  );
}

export interface TimeStampResponse {
  status: PkiStatusName | `unknown(${number})`;
  statusText: string[];
  failInfo: PkiFailureInfo[];
  /** The TimeStampToken (ContentInfo) bytes exactly as received, when present. */
  tokenDer?: Uint8Array;
}

export class TimeStampResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeStampResponseError';
  }
}

/** Reads a DER TimeStampResp (a client's view); throws TimeStampResponseError when it is not one. */
export function parseTimeStampResponse(der: Uint8Array): TimeStampResponse {
  try {
    const top = readSingle(der, TAG.SEQUENCE);
    const [statusInfo, token, ...extra] = readChildren(der, top);
    if (!statusInfo || statusInfo.tag !== TAG.SEQUENCE || extra.length) throw new DerError('not a TimeStampResp');
    const [statusTlv, ...optional] = readChildren(der, statusInfo);
    if (!statusTlv || statusTlv.tag !== TAG.INTEGER) throw new DerError('PKIStatusInfo has no status');
    const statusBytes = contentBytes(der, statusTlv);
    if (statusBytes.length !== 1) throw new DerError('PKIStatus out of range');
    const code = statusBytes[0]!;
    const name = (Object.entries(PKI_STATUS) as [PkiStatusName, number][]).find(([, n]) => n === code)?.[0];
    const out: TimeStampResponse = { status: name ?? `unknown(${code})`, statusText: [], failInfo: [] };
    for (const field of optional) {
      if (field.tag === TAG.SEQUENCE) {
        out.statusText = readChildren(der, field).map((t) => new TextDecoder().decode(contentBytes(der, t)));
      } else if (field.tag === TAG.BIT_STRING) {
        out.failInfo = decodeFailureInfo(contentBytes(der, field));
      }
    }
    if (token) {
      if (token.tag !== TAG.SEQUENCE) throw new DerError('timeStampToken is not a ContentInfo');
      out.tokenDer = tlvBytes(der, token).slice();
    }
    return out;
  } catch (err) {
    if (err instanceof DerError) throw new TimeStampResponseError(`not an RFC 3161 TimeStampResp: ${err.message}`);
    throw err;
  }
}
