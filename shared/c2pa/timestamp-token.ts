import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { ContentInfo, SignedData, id_signedData } from '@peculiar/asn1-cms';
import { TSTInfo, id_ct_tstInfo } from '@peculiar/asn1-tsp';

/**
 * A light check of an RFC 3161 TimeStampToken before it goes into a signed manifest: right shape, and a
 * message imprint over the bytes we asked to be stamped. The TSA signature and certificate are judged by
 * c2pa-rs when the file is read; this only stops a wrong or stale token from being embedded silently.
 */

export class TimeStampTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
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
}

/** Parses `token` (TimeStampToken DER) and checks its imprint is the hash of `imprintInput`. */
export function checkTimeStampToken(token: Uint8Array, imprintInput: Uint8Array): TimeStampTokenInfo {
  let tstInfo: TSTInfo;
  try {
    const contentInfo = AsnConvert.parse(token, ContentInfo);
    if (contentInfo.contentType !== id_signedData) throw new Error(`content type ${contentInfo.contentType}`);
    const signedData = AsnConvert.parse(contentInfo.content, SignedData);
    const encap = signedData.encapContentInfo;
    if (encap.eContentType !== id_ct_tstInfo) throw new Error(`encapsulated content type ${encap.eContentType}`);
    const octets = encap.eContent?.single?.buffer;
    if (!octets) throw new Error('no encapsulated TSTInfo');
    tstInfo = AsnConvert.parse(octets, TSTInfo);
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
  };
}
