import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { ContentInfo, SignedData, id_signedData } from '@peculiar/asn1-cms';
import { TSTInfo, id_ct_tstInfo } from '@peculiar/asn1-tsp';
import { DerError, TAG, contentBytes, readChildren, readSingle } from '../pki/der.js';
import { decodeOid } from './protocol.js';
import { ServiceError } from '../errors.js';

/**
 * A light check of an RFC 3161 TimeStampToken before it goes into a signed manifest: right shape, and a
 * message imprint over the bytes we asked to be stamped. The TSA signature and certificate are judged by
 * c2pa-rs when the file is read; this only stops a wrong or stale token from being embedded silently.
 */

/** What a signer is told when no usable timestamp came back (an unreachable TSA or a token that does not check out). */
export const TIMESTAMP_UNAVAILABLE = 'the time-stamp authority could not be reached or gave no valid timestamp';

/** The TSA's token does not check out: to a signer, the TSA gave no valid timestamp (retried). */
export class TimeStampTokenError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', 'timestamp_unavailable', message, { ...options, publicMessage: TIMESTAMP_UNAVAILABLE });
    this.name = 'TimeStampTokenError';
  }
}

const HASH_BY_OID: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

export interface TimeStampTokenInfo {
  genTime: Date;
  hashAlgorithm: string;
  /** TSTInfo serial number, hex. */
  serial: string;
  /** TSTInfo policy OID. */
  policy: string;
  /** TSTInfo nonce as the hex of its INTEGER content octets; null when the token has none. */
  nonce: string | null;
}

/**
 * The encapsulated TSTInfo of a DER token, found with the strict DER reader: ContentInfo { id-signedData,
 * [0] SignedData { version, digestAlgorithms, encapContentInfo { id-ct-TSTInfo, [0] OCTET STRING } ... } }.
 * About ten times cheaper than parsing the SignedData (with its certificates) through asn1-schema, and this
 * runs twice for every signature. Throws DerError for anything else, including BER (then the caller parses
 * the slow, lenient way).
 */
function tstInfoOfDerToken(token: Uint8Array): Uint8Array {
  const [contentType, content] = readChildren(token, readSingle(token, TAG.SEQUENCE));
  if (!contentType || contentType.tag !== TAG.OID || decodeOid(contentBytes(token, contentType)) !== id_signedData) throw new DerError('not a SignedData');
  if (!content || content.tag !== 0xa0) throw new DerError('no content');
  const [signedData] = readChildren(token, content);
  if (!signedData || signedData.tag !== TAG.SEQUENCE) throw new DerError('no SignedData');
  const encap = readChildren(token, signedData)[2];
  if (!encap || encap.tag !== TAG.SEQUENCE) throw new DerError('no encapContentInfo');
  const [eContentType, eContent] = readChildren(token, encap);
  if (!eContentType || eContentType.tag !== TAG.OID || decodeOid(contentBytes(token, eContentType)) !== id_ct_tstInfo) throw new DerError('not a TSTInfo');
  if (!eContent || eContent.tag !== 0xa0) throw new DerError('no eContent');
  const [octets] = readChildren(token, eContent);
  if (!octets || octets.tag !== TAG.OCTET_STRING) throw new DerError('eContent is not a primitive OCTET STRING');
  return contentBytes(token, octets);
}

/** The same through asn1-schema, which also reads BER (indefinite lengths, constructed OCTET STRINGs). */
function tstInfoOfBerToken(token: Uint8Array): ArrayBuffer {
  const contentInfo = AsnConvert.parse(token, ContentInfo);
  if (contentInfo.contentType !== id_signedData) throw new Error(`content type ${contentInfo.contentType}`);
  const signedData = AsnConvert.parse(contentInfo.content, SignedData);
  const encap = signedData.encapContentInfo;
  if (encap.eContentType !== id_ct_tstInfo) throw new Error(`encapsulated content type ${encap.eContentType}`);
  const octets = encap.eContent?.single?.buffer;
  if (!octets) throw new Error('no encapsulated TSTInfo');
  return octets;
}

/** Parses `token` (TimeStampToken DER) and checks its imprint is the hash of `imprintInput`. */
export function checkTimeStampToken(token: Uint8Array, imprintInput: Uint8Array): TimeStampTokenInfo {
  let tstInfo: TSTInfo;
  let policy: string;
  try {
    let octets: Uint8Array | ArrayBuffer;
    try {
      octets = tstInfoOfDerToken(token).slice(); // its own buffer: asn1-schema reads whole ArrayBuffers
    } catch (err) {
      if (!(err instanceof DerError)) throw err;
      octets = tstInfoOfBerToken(token);
    }
    tstInfo = AsnConvert.parse(octets, TSTInfo);
    // asn1js shows arcs beyond 2^53 (a 2.25.<UUID> policy) as "{hex}"; decode the OID from the DER instead.
    const der = new Uint8Array(octets);
    const policyTlv = readChildren(der, readSingle(der))[1];
    if (!policyTlv) throw new Error('TSTInfo has no policy');
    policy = decodeOid(contentBytes(der, policyTlv));
  } catch (err) {
    throw new TimeStampTokenError(`timestamper returned no RFC 3161 TimeStampToken: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const oid = tstInfo.messageImprint.hashAlgorithm.algorithm;
  const hashAlgorithm = HASH_BY_OID[oid];
  if (!hashAlgorithm) throw new TimeStampTokenError(`timestamp imprint uses unsupported hash algorithm ${oid}`);
  const expected = createHash(hashAlgorithm).update(imprintInput).digest();
  const actual = Buffer.from(tstInfo.messageImprint.hashedMessage.buffer);
  if (!expected.equals(actual)) {
    throw new TimeStampTokenError('timestamp token imprint does not match the signature it should stamp');
  }
  return {
    genTime: tstInfo.genTime,
    hashAlgorithm,
    serial: Buffer.from(tstInfo.serialNumber).toString('hex'),
    policy,
    nonce: tstInfo.nonce ? Buffer.from(tstInfo.nonce).toString('hex') : null,
  };
}
