/**
 * Reading an OCSP answer someone else signed (RFC 6960): the one the service staples into a signature (fetched from a
 * responder, its own or an external CA's) and the one a verified file carries in its COSE header. Parsed with
 * @peculiar/asn1-ocsp, not the responder's strict encoder: these answers come from any responder.
 *
 * `checkOcspAnswer` is what a relying party checks before believing an answer about one certificate: the response is
 * successful and signed by the issuing CA or by a delegated responder (EKU OCSPSigning, issued by that CA, embedded in
 * `certs`), and it has a SingleResponse for that certificate's CertID (any hash algorithm).
 */
import { createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import { BasicOCSPResponse, OCSPResponse, OCSPResponseStatus, id_pkix_ocsp_basic, type SingleResponse } from '@peculiar/asn1-ocsp';
import { AsnConvert } from '@peculiar/asn1-schema';
import { crlReasonFromCode, type CrlReason } from '../domain/crl-reasons.js';
import { nameToString, readCertificate } from './certificate.js';
import { bytesEqual } from './der.js';
import { certificateNameAndKey } from './ocsp-request.js';
import { integerBytesToSerialHex } from './serial.js';

export type OcspCertStatusName = 'good' | 'revoked' | 'unknown';

/** What one SingleResponse says about the certificate asked about. */
export interface OcspAnswerFacts {
  status: OcspCertStatusName;
  producedAt: Date;
  thisUpdate: Date;
  /** Absent: "newer information is always available" (RFC 6960 4.2.2.1). */
  nextUpdate?: Date;
  revokedAt?: Date;
  reason?: CrlReason;
  /** Who signed it: the delegated responder's or the CA's subject (RFC 4514). */
  responder: string;
  /** True when a delegated responder certificate (EKU OCSPSigning, issued by the CA) signed it. */
  delegated: boolean;
}

export class OcspAnswerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OcspAnswerError';
  }
}

const ID_KP_OCSP_SIGNING = '1.3.6.1.5.5.7.3.9';

/** Signature algorithms answers are signed with: the hash node:crypto verifies with. */
const SIGNATURE_HASHES: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.5': 'sha1', // sha1WithRSAEncryption (older responders still sign so)
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
};

/** CertID hash algorithms a client may have used (RFC 6960 and what OpenSSL sends). */
const CERT_ID_HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

interface ParsedAnswer {
  basic: BasicOCSPResponse;
  certificates: Uint8Array[];
}

/** The BasicOCSPResponse of a successful OCSPResponse; an OcspAnswerError for anything else. */
function parse(der: Uint8Array): ParsedAnswer {
  let response: OCSPResponse;
  try {
    response = AsnConvert.parse(der.slice(), OCSPResponse);
  } catch (err) {
    throw new OcspAnswerError('not a DER OCSPResponse', { cause: err });
  }
  if (response.responseStatus !== OCSPResponseStatus.successful) {
    throw new OcspAnswerError(`the responder answered ${OCSPResponseStatus[response.responseStatus] ?? response.responseStatus}`);
  }
  if (!response.responseBytes || response.responseBytes.responseType !== id_pkix_ocsp_basic) throw new OcspAnswerError('not a basic OCSP response');
  let basic: BasicOCSPResponse;
  try {
    basic = AsnConvert.parse(response.responseBytes.response, BasicOCSPResponse);
  } catch (err) {
    throw new OcspAnswerError('the BasicOCSPResponse does not parse', { cause: err });
  }
  return { basic, certificates: (basic.certs ?? []).map((c) => new Uint8Array(AsnConvert.serialize(c))) };
}

/** The raw ResponseData bytes (asn1-schema keeps them when the property is declared `raw`). */
function tbsOf(basic: BasicOCSPResponse): Uint8Array {
  const raw = (basic as unknown as { tbsResponseDataRaw?: ArrayBuffer }).tbsResponseDataRaw;
  if (raw) return new Uint8Array(raw);
  return new Uint8Array(AsnConvert.serialize(basic.tbsResponseData));
}

function verifiesTbs(basic: BasicOCSPResponse, certificateDer: Uint8Array): boolean {
  const hash = SIGNATURE_HASHES[basic.signatureAlgorithm.algorithm];
  if (!hash) return false;
  try {
    const key = new X509Certificate(Buffer.from(certificateDer)).publicKey;
    const signature = new Uint8Array(basic.signature);
    // ECDSA signatures are DER here, as X.509 writes them (node's default dsaEncoding).
    return verifySignature(hash, tbsOf(basic), key, signature);
  } catch {
    return false;
  }
}

/**
 * The certificate whose key signed the answer: the issuing CA itself, or a delegated responder among the embedded
 * certificates (EKU OCSPSigning, issued and signed by the CA); undefined when neither signed it.
 */
function responderOf(parsed: ParsedAnswer, issuerDer: Uint8Array): { der: Uint8Array; delegated: boolean } | undefined {
  if (verifiesTbs(parsed.basic, issuerDer)) return { der: issuerDer, delegated: false };
  const issuer = new X509Certificate(Buffer.from(issuerDer));
  for (const der of parsed.certificates) {
    let candidate: X509Certificate;
    try {
      candidate = new X509Certificate(Buffer.from(der));
    } catch {
      continue;
    }
    if (!candidate.keyUsage?.includes(ID_KP_OCSP_SIGNING)) continue;
    if (!candidate.checkIssued(issuer) || !candidate.verify(issuer.publicKey)) continue;
    if (verifiesTbs(parsed.basic, der)) return { der, delegated: true };
  }
  return undefined;
}

/** Whether a SingleResponse's CertID names `serialHex` issued by `issuerDer` (under its own hash algorithm). */
function namesCertificate(single: SingleResponse, issuerDer: Uint8Array, serialHex: string): boolean {
  const id = single.certID;
  const hash = CERT_ID_HASHES[id.hashAlgorithm.algorithm];
  if (!hash) return false;
  if (integerBytesToSerialHex(new Uint8Array(id.serialNumber)) !== serialHex) return false;
  const { subject, publicKeyBits } = certificateNameAndKey(issuerDer);
  return (
    bytesEqual(new Uint8Array(createHash(hash).update(subject).digest()), new Uint8Array(id.issuerNameHash.buffer)) &&
    bytesEqual(new Uint8Array(createHash(hash).update(publicKeyBits).digest()), new Uint8Array(id.issuerKeyHash.buffer))
  );
}

function statusOf(single: SingleResponse): Pick<OcspAnswerFacts, 'status' | 'revokedAt' | 'reason'> {
  const s = single.certStatus;
  if (s.revoked) {
    const reason = s.revoked.revocationReason;
    return { status: 'revoked', revokedAt: s.revoked.revocationTime, ...(reason ? { reason: crlReasonFromCode(reason.reason) } : {}) };
  }
  if (s.good !== undefined) return { status: 'good' };
  return { status: 'unknown' };
}

/**
 * What a DER OCSPResponse says about the certificate `leafDer` issued by `issuerDer`, once its signature and
 * responder are checked. An OcspAnswerError when the answer is not one a relying party would take (not successful,
 * not signed by the CA or its delegated responder, no SingleResponse for the certificate).
 */
export function checkOcspAnswer(der: Uint8Array, leafDer: Uint8Array, issuerDer: Uint8Array): OcspAnswerFacts {
  const parsed = parse(der);
  const responder = responderOf(parsed, issuerDer);
  if (!responder) throw new OcspAnswerError('the answer is signed neither by the issuing CA nor by a responder it delegated to');
  const serialHex = readCertificate(leafDer).facts.serialHex;
  const single = parsed.basic.tbsResponseData.responses.find((r) => namesCertificate(r, issuerDer, serialHex));
  if (!single) throw new OcspAnswerError(`the answer has no status for certificate ${serialHex}`);
  return {
    ...statusOf(single),
    producedAt: parsed.basic.tbsResponseData.producedAt,
    thisUpdate: single.thisUpdate,
    ...(single.nextUpdate ? { nextUpdate: single.nextUpdate } : {}),
    responder: readCertificate(responder.der).facts.subject,
    delegated: responder.delegated,
  };
}

/**
 * What an answer says without knowing whose it is (a stapled answer whose certificate chain is not at hand): the
 * first SingleResponse and the responder named by the answer (byName, or the embedded certificate whose key hash
 * matches byKey). The signature is not checked: c2pa-rs's own verdict (signingCredential.ocsp.*) says whether it
 * counted.
 */
export function describeOcspAnswer(der: Uint8Array): OcspAnswerFacts {
  const parsed = parse(der);
  const single = parsed.basic.tbsResponseData.responses[0];
  if (!single) throw new OcspAnswerError('the answer has no SingleResponse');
  const id = parsed.basic.tbsResponseData.responderID;
  let responder = '';
  if (id.byName) responder = nameToString(new Uint8Array(AsnConvert.serialize(id.byName)));
  else if (id.byKey) {
    const keyHash = new Uint8Array(id.byKey.buffer);
    const match = parsed.certificates.find((c) => bytesEqual(new Uint8Array(createHash('sha1').update(certificateNameAndKey(c).publicKeyBits).digest()), keyHash));
    responder = match ? readCertificate(match).facts.subject : `key ${Buffer.from(keyHash).toString('hex')}`;
  }
  return {
    ...statusOf(single),
    producedAt: parsed.basic.tbsResponseData.producedAt,
    thisUpdate: single.thisUpdate,
    ...(single.nextUpdate ? { nextUpdate: single.nextUpdate } : {}),
    responder,
    delegated: parsed.certificates.length > 0 && !!id.byKey,
  };
}

/**
 * Who signed a successful answer as it names itself: its responderID byKey and the first certificate it embeds (a
 * delegated responder's); undefined for an answer that does not parse.
 */
export function ocspAnswerSigner(der: Uint8Array): { keyHash?: Uint8Array; certificate?: Uint8Array } | undefined {
  try {
    const parsed = parse(der);
    const byKey = parsed.basic.tbsResponseData.responderID.byKey;
    return { keyHash: byKey ? new Uint8Array(byKey.buffer) : undefined, certificate: parsed.certificates[0] };
  } catch {
    return undefined;
  }
}
