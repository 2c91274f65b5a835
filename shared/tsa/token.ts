/**
 * RFC 3161 TimeStampTokens: a TSTInfo inside a CMS SignedData (RFC 5652), signed ES384 by the TSA's vault key
 * through the shared signing path (shared/pki/tbs-signer.ts).
 *
 *   ContentInfo { id-signedData, [0] SignedData {
 *     version 3, digestAlgorithms { sha384 },
 *     encapContentInfo { id-ct-TSTInfo, [0] OCTET STRING TSTInfo },
 *     certificates [0] { TSA certificate, sub-CA certificate }      -- only when the request has certReq
 *     signerInfos { SignerInfo {
 *       version 1, sid issuerAndSerialNumber, digestAlgorithm sha384,
 *       signedAttrs [0] { contentType id-ct-TSTInfo, messageDigest SHA-384(TSTInfo),
 *                         signingCertificateV2 { ESSCertIDv2 { SHA-256(TSA cert), issuerSerial } } },
 *       signatureAlgorithm ecdsa-with-SHA384, signature DER ECDSA-Sig-Value } } } }
 *
 *   TSTInfo { version 1, policy, messageImprint (the request's, byte for byte), serialNumber (16 random bytes),
 *             genTime (GeneralizedTime, whole seconds), accuracy { seconds 1 }, nonce (the request's, if any) }
 *
 * Everything is written as DER by hand: SET OF elements are sorted (X.690 11.6), because verifiers such as
 * c2pa-rs re-encode the signed attributes before checking the signature, so only canonical DER verifies.
 * signingCertificateV2 (RFC 5816 / RFC 5035) is what `openssl ts -verify` requires to bind the signer.
 */
import { createHash } from 'node:crypto';
import { readCertificate } from '../pki/certificate.js';
import { TAG, encodeTlv } from '../pki/der.js';
import { randomSerial, serialHexToIntegerBytes } from '../pki/serial.js';
import { ECDSA_WITH_SHA384_ALGORITHM_DER, signTbs } from '../pki/tbs-signer.js';
import type { VaultKey } from '../vault/types.js';
import { TSA_HASH_ALGORITHMS, algorithmIdentifier, encodeOid, integerTlv, type TimeStampRequest } from './protocol.js';

export const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

const TAG_CONTEXT_0 = 0xa0;
const TAG_DIRECTORY_NAME = 0xa4; // GeneralName [4] directoryName (EXPLICIT: Name is a CHOICE)
const TAG_GENERALIZED_TIME = 0x18;

/** What the TSA signs with: its vault key and certificate chain (TSA certificate first, then the sub-CA). */
export interface TsaIdentity {
  key: VaultKey;
  /** [TSA certificate DER, issuing sub-CA DER]; no root (relying parties hold it as their anchor). */
  chainDer: Uint8Array[];
  /** Canonical hex serial of the TSA certificate. */
  serial: string;
  notBefore: Date;
  notAfter: Date;
}

/** The DER pieces of the SignerInfo and certificates that do not change between tokens. */
export interface PreparedTsaSigner {
  identity: TsaIdentity;
  /** IssuerAndSerialNumber of the TSA certificate (the SignerInfo sid). */
  sidDer: Uint8Array;
  /** The signingCertificateV2 Attribute. */
  essAttributeDer: Uint8Array;
  /** [0] IMPLICIT CertificateSet with the chain. */
  certificatesDer: Uint8Array;
}

/** DER SET OF: the elements sorted by their encodings (X.690 11.6). */
export function derSetOf(tag: number, elements: readonly Uint8Array[]): Uint8Array {
  const sorted = [...elements].sort((a, b) => Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)));
  return encodeTlv(tag, ...sorted);
}

function attribute(oid: string, value: Uint8Array): Uint8Array {
  return encodeTlv(TAG.SEQUENCE, encodeOid(oid), encodeTlv(TAG.SET, value));
}

/** GeneralizedTime in whole seconds, "YYYYMMDDHHMMSSZ" (RFC 3161 2.4.2 with no fraction). */
export function generalizedTime(date: Date): Uint8Array {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const text = `${p(date.getUTCFullYear(), 4)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}Z`;
  return encodeTlv(TAG_GENERALIZED_TIME, new TextEncoder().encode(text));
}

/** Precomputes the parts of every token that depend only on the identity. */
export function prepareTsaSigner(identity: TsaIdentity): PreparedTsaSigner {
  const [tsaDer] = identity.chainDer;
  if (!tsaDer) throw new Error('TSA identity has no certificate');
  const parts = readCertificate(tsaDer);
  if (!parts.facts.extendedKeyUsage.includes('1.3.6.1.5.5.7.3.8')) {
    throw new Error(`certificate ${parts.facts.serialHex} is not a time-stamping certificate (no EKU timeStamping)`);
  }
  const serialTlv = integerTlv(serialHexToIntegerBytes(parts.facts.serialHex));
  const sidDer = encodeTlv(TAG.SEQUENCE, parts.issuerNameDer, serialTlv);
  const issuerSerial = encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, encodeTlv(TAG_DIRECTORY_NAME, parts.issuerNameDer)), serialTlv);
  // ESSCertIDv2: hashAlgorithm DEFAULT sha256 is omitted (DER leaves defaults out).
  const essCertId = encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.OCTET_STRING, createHash('sha256').update(tsaDer).digest()), issuerSerial);
  const signingCertificateV2 = encodeTlv(TAG.SEQUENCE, encodeTlv(TAG.SEQUENCE, essCertId));
  return {
    identity,
    sidDer,
    essAttributeDer: attribute(OID.signingCertificateV2, signingCertificateV2),
    certificatesDer: derSetOf(TAG_CONTEXT_0, identity.chainDer),
  };
}

export interface TokenRequest {
  request: Pick<TimeStampRequest, 'messageImprintDer' | 'nonceDer' | 'certReq'>;
  policy: string;
  /** Truncated to whole seconds. */
  genTime: Date;
  /** TSTInfo accuracy in seconds (default 1: genTime is the clock's whole second). */
  accuracySeconds?: number;
}

export interface IssuedToken {
  /** TimeStampToken (ContentInfo) DER. */
  der: Uint8Array;
  tstInfoDer: Uint8Array;
  /** TSTInfo serial number, lowercase hex (16 random bytes: unique across TSA processes without coordination). */
  serialHex: string;
  genTime: Date;
}

/** Builds and signs one TimeStampToken. The only I/O is the vault signature. */
export async function issueTimeStampToken(signer: PreparedTsaSigner, input: TokenRequest): Promise<IssuedToken> {
  const genTime = new Date(Math.floor(input.genTime.getTime() / 1000) * 1000);
  const serial = randomSerial();
  const tstInfoDer = encodeTlv(
    TAG.SEQUENCE,
    integerTlv(Uint8Array.of(1)),
    encodeOid(input.policy),
    input.request.messageImprintDer,
    integerTlv(serial.bytes),
    generalizedTime(genTime),
    encodeTlv(TAG.SEQUENCE, integerTlv(Uint8Array.of(input.accuracySeconds ?? 1))),
    ...(input.request.nonceDer ? [input.request.nonceDer] : []),
  );
  const sha384 = TSA_HASH_ALGORITHMS.sha384.oid;
  const attributes = [
    attribute(OID.contentType, encodeOid(OID.tstInfo)),
    attribute(OID.messageDigest, encodeTlv(TAG.OCTET_STRING, createHash('sha384').update(tstInfoDer).digest())),
    signer.essAttributeDer,
  ];
  // RFC 5652 5.4: the signature is over the DER of the attributes as a SET OF (tag 0x31); they are carried
  // in the SignerInfo as [0] IMPLICIT with the same content.
  const signedAttrsSet = derSetOf(TAG.SET, attributes);
  const signature = await signTbs(signer.identity.key, signedAttrsSet, { tag: TAG.SET });
  const signedAttrsImplicit = Uint8Array.from(signedAttrsSet);
  signedAttrsImplicit[0] = TAG_CONTEXT_0;

  const signerInfo = encodeTlv(
    TAG.SEQUENCE,
    integerTlv(Uint8Array.of(1)),
    signer.sidDer,
    algorithmIdentifier(sha384),
    signedAttrsImplicit,
    ECDSA_WITH_SHA384_ALGORITHM_DER,
    encodeTlv(TAG.OCTET_STRING, signature.signatureValue),
  );
  const signedData = encodeTlv(
    TAG.SEQUENCE,
    integerTlv(Uint8Array.of(3)),
    encodeTlv(TAG.SET, algorithmIdentifier(sha384)),
    encodeTlv(TAG.SEQUENCE, encodeOid(OID.tstInfo), encodeTlv(TAG_CONTEXT_0, encodeTlv(TAG.OCTET_STRING, tstInfoDer))),
    ...(input.request.certReq ? [signer.certificatesDer] : []),
    encodeTlv(TAG.SET, signerInfo),
  );
  const der = encodeTlv(TAG.SEQUENCE, encodeOid(OID.signedData), encodeTlv(TAG_CONTEXT_0, signedData));
  return { der, tstInfoDer, serialHex: serial.hex, genTime };
}
