/**
 * OCSP requests (RFC 6960 section 4.1): decoding of the DER OCSPRequest that clients POST, of the base64
 * form that RFC 5019 / RFC 6960 appendix A.1 clients put in a GET path, and the CertID arithmetic
 * (hashes of an issuer's name and key) that both the responder and test clients need.
 *
 * The decoder is a strict DER walk over `der.ts` rather than @peculiar/asn1-ocsp: it is on the responder's
 * hot path (about 2 us per request here, against about 145 us for AsnConvert.parse), it keeps the exact
 * CertID bytes (echoed unchanged in the response, as RFC 6960 section 4.2.1 requires CertIDs to match), and
 * it fails with one typed error, OcspMalformedRequestError, for anything undecodable.
 *
 *     OCSPRequest   ::= SEQUENCE { tbsRequest TBSRequest, optionalSignature [0] EXPLICIT Signature OPTIONAL }
 *     TBSRequest    ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1,
 *                                  requestorName [1] EXPLICIT GeneralName OPTIONAL,
 *                                  requestList SEQUENCE OF Request,
 *                                  requestExtensions [2] EXPLICIT Extensions OPTIONAL }
 *     Request       ::= SEQUENCE { reqCert CertID, singleRequestExtensions [0] EXPLICIT Extensions OPTIONAL }
 *     CertID        ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, issuerNameHash OCTET STRING,
 *                                  issuerKeyHash OCTET STRING, serialNumber CertificateSerialNumber }
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../errors.js';
import {
  DerError,
  TAG,
  bytesEqual,
  concatBytes,
  contentBytes,
  encodeTlv,
  readChildren,
  readSingle,
  readTlv,
  tlvBytes,
  type Tlv,
} from './der.js';
import { integerBytesToSerialHex, serialHexToIntegerBytes } from './serial.js';

export type OcspHashAlgorithm = 'sha1' | 'sha256' | 'sha384' | 'sha512';

/** Hash algorithms a CertID may use, with their OIDs and digest sizes. */
export const OCSP_HASH_ALGORITHMS: Readonly<Record<OcspHashAlgorithm, { oid: string; bytes: number }>> = {
  sha1: { oid: '1.3.14.3.2.26', bytes: 20 },
  sha256: { oid: '2.16.840.1.101.3.4.2.1', bytes: 32 },
  sha384: { oid: '2.16.840.1.101.3.4.2.2', bytes: 48 },
  sha512: { oid: '2.16.840.1.101.3.4.2.3', bytes: 64 },
};

/** id-pkix-ocsp-nonce (RFC 6960 section 4.4.1, RFC 8954). */
export const OCSP_NONCE_OID = '1.3.6.1.5.5.7.48.1.2';

const CONTEXT_0 = 0xa0;
const CONTEXT_1 = 0xa1;
const CONTEXT_2 = 0xa2;
const BOOLEAN = 0x01;

export class OcspMalformedRequestError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid', 'malformed_request', `malformed OCSP request: ${message}`, options);
    this.name = 'OcspMalformedRequestError';
  }
}

export interface OcspCertId {
  /** The CertID hash algorithm, or undefined when its OID is none of OCSP_HASH_ALGORITHMS. */
  hashAlgorithm: OcspHashAlgorithm | undefined;
  /** Dotted OID of the hash algorithm as sent. */
  hashAlgorithmOid: string;
  issuerNameHash: Uint8Array;
  issuerKeyHash: Uint8Array;
  /** The serial in the service's canonical form (shared/pki/serial.ts): lowercase hex, no sign octet. */
  serialHex: string;
  /** The exact DER of this CertID as it appeared in the request (echoed in the SingleResponse). */
  der: Uint8Array;
}

export interface OcspRequestInfo {
  /** One entry per Request in requestList, in order; never empty. */
  certIds: OcspCertId[];
  /**
   * extnValue contents of the request's nonce extension, when present: by RFC 8954 the DER of an
   * OCTET STRING holding the nonce. Echoed byte for byte in the response's nonce extension.
   */
  nonce?: Uint8Array;
  /** True when the request carries an optionalSignature (which this service neither needs nor checks). */
  signed: boolean;
}

// OID content octets, compared as bytes on the hot path.
const HASH_OID_BYTES: ReadonlyArray<[OcspHashAlgorithm, Uint8Array]> = (
  Object.keys(OCSP_HASH_ALGORITHMS) as OcspHashAlgorithm[]
).map((name) => [name, encodeOidContent(OCSP_HASH_ALGORITHMS[name].oid)]);
const NONCE_OID_BYTES = encodeOidContent(OCSP_NONCE_OID);

function encodeOidContent(oid: string): Uint8Array {
  const arcs = oid.split('.').map(Number);
  const out: number[] = [];
  const push = (v: number) => {
    const groups = [v & 0x7f];
    for (v = Math.floor(v / 128); v > 0; v = Math.floor(v / 128)) groups.unshift(0x80 | (v & 0x7f));
    out.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return Uint8Array.from(out);
}

/** DER OBJECT IDENTIFIER (tag, length, content) for a dotted OID. */
export function encodeOid(oid: string): Uint8Array {
  return encodeTlv(TAG.OID, encodeOidContent(oid));
}

function decodeOidContent(content: Uint8Array): string {
  if (content.length === 0 || (content[content.length - 1]! & 0x80) !== 0) throw new DerError('invalid OBJECT IDENTIFIER');
  const arcs: number[] = [];
  let v = 0;
  for (const b of content) {
    if (v === 0 && b === 0x80) throw new DerError('non-minimal OBJECT IDENTIFIER arc');
    v = v * 128 + (b & 0x7f);
    if (v > Number.MAX_SAFE_INTEGER / 128) throw new DerError('OBJECT IDENTIFIER arc too large');
    if ((b & 0x80) === 0) {
      if (arcs.length === 0) arcs.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
      else arcs.push(v);
      v = 0;
    }
  }
  return arcs.join('.');
}

function expectTag(tlv: Tlv | undefined, tag: number, what: string): Tlv {
  if (!tlv) throw new DerError(`${what} is missing`);
  if (tlv.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}, got 0x${tlv.tag.toString(16)}`);
  return tlv;
}

function decodeCertId(der: Uint8Array, tlv: Tlv): OcspCertId {
  const [alg, nameHash, keyHash, serial, extra] = readChildren(der, expectTag(tlv, TAG.SEQUENCE, 'CertID'));
  const [oid, params, more] = readChildren(der, expectTag(alg, TAG.SEQUENCE, 'CertID.hashAlgorithm'));
  if (more) throw new DerError('CertID.hashAlgorithm has extra fields');
  const oidContent = contentBytes(der, expectTag(oid, TAG.OID, 'CertID.hashAlgorithm.algorithm'));
  // Parameters: absent or NULL for these digests; anything else is still read as "an algorithm we don't know".
  const known = HASH_OID_BYTES.find(([, bytes]) => bytesEqual(bytes, oidContent));
  const hashAlgorithm = known && (params === undefined || (params.tag === TAG.NULL && params.end === params.contentStart)) ? known[0] : undefined;
  expectTag(nameHash, TAG.OCTET_STRING, 'CertID.issuerNameHash');
  expectTag(keyHash, TAG.OCTET_STRING, 'CertID.issuerKeyHash');
  expectTag(serial, TAG.INTEGER, 'CertID.serialNumber');
  if (extra) throw new DerError('CertID has extra fields');
  const serialContent = contentBytes(der, serial!);
  if (serialContent.length === 0) throw new DerError('empty serialNumber');
  if (serialContent.length > 1 && ((serialContent[0] === 0 && serialContent[1]! < 0x80) || (serialContent[0] === 0xff && serialContent[1]! >= 0x80))) {
    throw new DerError('non-minimal serialNumber INTEGER');
  }
  return {
    hashAlgorithm,
    hashAlgorithmOid: known ? OCSP_HASH_ALGORITHMS[known[0]].oid : decodeOidContent(oidContent),
    issuerNameHash: contentBytes(der, nameHash!),
    issuerKeyHash: contentBytes(der, keyHash!),
    serialHex: integerBytesToSerialHex(serialContent),
    der: tlvBytes(der, tlv),
  };
}

/** Finds the nonce in an `[2] EXPLICIT Extensions`; checks every Extension's shape. */
function decodeExtensions(der: Uint8Array, explicit: Tlv): Uint8Array | undefined {
  const [seq, extra] = readChildren(der, explicit);
  if (extra) throw new DerError('requestExtensions has extra content');
  let nonce: Uint8Array | undefined;
  for (const ext of readChildren(der, expectTag(seq, TAG.SEQUENCE, 'Extensions'))) {
    const fields = readChildren(der, expectTag(ext, TAG.SEQUENCE, 'Extension'));
    const oid = expectTag(fields[0], TAG.OID, 'Extension.extnID');
    let i = 1;
    if (fields[i]?.tag === BOOLEAN) i++;
    const value = expectTag(fields[i], TAG.OCTET_STRING, 'Extension.extnValue');
    if (fields.length !== i + 1) throw new DerError('Extension has extra fields');
    if (bytesEqual(contentBytes(der, oid), NONCE_OID_BYTES)) {
      if (nonce) throw new DerError('more than one nonce extension');
      nonce = contentBytes(der, value);
    }
  }
  return nonce;
}

/**
 * Decodes a DER OCSPRequest. Returned byte arrays are views into `der` (copy them to keep them beyond it).
 * Throws OcspMalformedRequestError for anything that is not a well-formed request with at least one CertID.
 * Unknown extensions are skipped (RFC 6960 section 4.4: unrecognised non-critical extensions are ignored;
 * the request extensions defined there are all advisory), and a request signature is not checked.
 */
export function decodeOcspRequest(der: Uint8Array): OcspRequestInfo {
  try {
    if (der.length === 0) throw new DerError('empty request');
    const outer = readSingle(der, TAG.SEQUENCE);
    const [tbs, sig, extra] = readChildren(der, outer);
    expectTag(tbs, TAG.SEQUENCE, 'tbsRequest');
    if (sig && sig.tag !== CONTEXT_0) throw new DerError('unexpected element after tbsRequest');
    if (extra) throw new DerError('OCSPRequest has extra fields');

    const fields = readChildren(der, tbs!);
    let i = 0;
    if (fields[i]?.tag === CONTEXT_0) {
      const [version, more] = readChildren(der, fields[i]!);
      const v = expectTag(version, TAG.INTEGER, 'version');
      if (more || v.end - v.contentStart !== 1 || der[v.contentStart] !== 0) throw new DerError('unsupported request version');
      i++;
    }
    if (fields[i]?.tag === CONTEXT_1) i++; // requestorName: informational
    const list = expectTag(fields[i++], TAG.SEQUENCE, 'requestList');
    let nonce: Uint8Array | undefined;
    if (fields[i]?.tag === CONTEXT_2) nonce = decodeExtensions(der, fields[i++]!);
    if (i !== fields.length) throw new DerError('TBSRequest has unexpected fields');

    const certIds: OcspCertId[] = [];
    for (const request of readChildren(der, list)) {
      const [certId, singleExtensions, more] = readChildren(der, expectTag(request, TAG.SEQUENCE, 'Request'));
      if ((singleExtensions && singleExtensions.tag !== CONTEXT_0) || more) throw new DerError('Request has unexpected fields');
      certIds.push(decodeCertId(der, certId!));
    }
    if (certIds.length === 0) throw new DerError('requestList is empty');
    return { certIds, nonce, signed: sig !== undefined };
  } catch (err) {
    if (err instanceof OcspMalformedRequestError) throw err;
    if (err instanceof DerError || err instanceof RangeError) throw new OcspMalformedRequestError(err.message, { cause: err });
    throw err;
  }
}

const BASE64_PATH = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The DER request carried in a GET path (RFC 6960 appendix A.1: `GET {url}/{url-encoding of base-64
 * encoding of the DER encoding of the OCSPRequest}`). `path` is the request target as received, e.g.
 * "/MEMwQTA%2FMD0wOzAJ...%3D"; a query string is ignored. Percent-encoded and literal '/', '+' and '=' are
 * both accepted (clients differ in what they escape), and so is the base64url alphabet.
 */
export function decodeOcspGetPath(path: string): Uint8Array {
  let target = path.startsWith('/') ? path.slice(1) : path;
  const query = target.indexOf('?');
  if (query >= 0) target = target.slice(0, query);
  let b64: string;
  try {
    b64 = decodeURIComponent(target);
  } catch (err) {
    throw new OcspMalformedRequestError('GET path is not valid percent-encoding', { cause: err });
  }
  b64 = b64.replace(/[\r\n]/g, '');
  if (!BASE64_PATH.test(b64)) throw new OcspMalformedRequestError('GET path is not base64');
  const der = new Uint8Array(Buffer.from(b64, 'base64'));
  if (der.length === 0) throw new OcspMalformedRequestError('GET path holds no request');
  return der;
}

/** The GET path for a DER request: "/" + percent-encoded base64 (RFC 6960 appendix A.1). */
export function encodeOcspGetPath(der: Uint8Array): string {
  return `/${encodeURIComponent(Buffer.from(der).toString('base64'))}`;
}

/** The subject Name DER and subjectPublicKey BIT STRING contents (no unused-bits octet) of a certificate. */
export function certificateNameAndKey(certificateDer: Uint8Array): { subject: Uint8Array; publicKeyBits: Uint8Array; spki: Uint8Array } {
  const cert = readSingle(certificateDer, TAG.SEQUENCE);
  const [tbs] = readChildren(certificateDer, cert);
  const fields = readChildren(certificateDer, expectTag(tbs, TAG.SEQUENCE, 'tbsCertificate'));
  const i = fields[0]?.tag === CONTEXT_0 ? 1 : 0; // [0] version
  // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
  const subject = expectTag(fields[i + 4], TAG.SEQUENCE, 'subject');
  const spki = expectTag(fields[i + 5], TAG.SEQUENCE, 'subjectPublicKeyInfo');
  return {
    subject: tlvBytes(certificateDer, subject),
    publicKeyBits: spkiPublicKeyBits(tlvBytes(certificateDer, spki)),
    spki: tlvBytes(certificateDer, spki),
  };
}

/** The subjectPublicKey BIT STRING contents of a DER SubjectPublicKeyInfo, without the unused-bits octet. */
export function spkiPublicKeyBits(spki: Uint8Array): Uint8Array {
  const outer = readSingle(spki, TAG.SEQUENCE);
  const [, bits] = readChildren(spki, outer);
  const bitString = expectTag(bits, TAG.BIT_STRING, 'subjectPublicKey');
  if (bitString.end - bitString.contentStart < 1 || spki[bitString.contentStart] !== 0) {
    throw new DerError('subjectPublicKey must have 0 unused bits');
  }
  return spki.subarray(bitString.contentStart + 1, bitString.end);
}

/** issuerNameHash and issuerKeyHash of an issuer certificate under `hash` (RFC 6960 section 4.1.1). */
export function issuerHashes(issuerCertificateDer: Uint8Array, hash: OcspHashAlgorithm): { issuerNameHash: Uint8Array; issuerKeyHash: Uint8Array } {
  const { subject, publicKeyBits } = certificateNameAndKey(issuerCertificateDer);
  return {
    issuerNameHash: new Uint8Array(createHash(hash).update(subject).digest()),
    issuerKeyHash: new Uint8Array(createHash(hash).update(publicKeyBits).digest()),
  };
}

export interface OcspCertIdInput {
  hashAlgorithm: OcspHashAlgorithm;
  issuerNameHash: Uint8Array;
  issuerKeyHash: Uint8Array;
  serialHex: string;
}

/** DER CertID (hash AlgorithmIdentifier with NULL parameters, as OpenSSL and most clients send it). */
export function encodeCertId(id: OcspCertIdInput): Uint8Array {
  const algorithm = encodeTlv(
    TAG.SEQUENCE,
    encodeOid(OCSP_HASH_ALGORITHMS[id.hashAlgorithm].oid),
    Uint8Array.of(TAG.NULL, 0),
  );
  return encodeTlv(
    TAG.SEQUENCE,
    algorithm,
    encodeTlv(TAG.OCTET_STRING, id.issuerNameHash),
    encodeTlv(TAG.OCTET_STRING, id.issuerKeyHash),
    encodeTlv(TAG.INTEGER, serialHexToIntegerBytes(id.serialHex)),
  );
}

/** The CertID of certificate `serialHex` issued by `issuerCertificateDer`. */
export function certIdFor(issuerCertificateDer: Uint8Array, serialHex: string, hashAlgorithm: OcspHashAlgorithm = 'sha1'): Uint8Array {
  return encodeCertId({ hashAlgorithm, serialHex, ...issuerHashes(issuerCertificateDer, hashAlgorithm) });
}

/**
 * A DER OCSPRequest for the given CertIDs (each a DER CertID, e.g. from certIdFor), unsigned; with a nonce
 * extension when `nonce` is given (the raw nonce octets, wrapped in an OCTET STRING as RFC 8954 says).
 * Used by tests and benchmarks; the service itself never sends requests.
 */
export function encodeOcspRequest(certIds: readonly Uint8Array[], options: { nonce?: Uint8Array } = {}): Uint8Array {
  const requestList = encodeTlv(TAG.SEQUENCE, ...certIds.map((id) => encodeTlv(TAG.SEQUENCE, id)));
  const parts = [requestList];
  if (options.nonce) {
    const extension = encodeTlv(
      TAG.SEQUENCE,
      encodeOid(OCSP_NONCE_OID),
      encodeTlv(TAG.OCTET_STRING, encodeTlv(TAG.OCTET_STRING, options.nonce)),
    );
    parts.push(encodeTlv(CONTEXT_2, encodeTlv(TAG.SEQUENCE, extension)));
  }
  return encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, concatBytes(parts)));
}

/** Reads the TLV of a DER OCTET STRING that fills `bytes` exactly, or undefined when it is not one. */
export function unwrapOctetString(bytes: Uint8Array): Uint8Array | undefined {
  try {
    const tlv = readTlv(bytes, 0);
    if (tlv.tag !== TAG.OCTET_STRING || tlv.end !== bytes.length) return undefined;
    return contentBytes(bytes, tlv);
  } catch {
    return undefined;
  }
}
