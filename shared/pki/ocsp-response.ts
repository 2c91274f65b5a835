/**
 * OCSP responses (RFC 6960 section 4.2, profile of RFC 5019): DER OCSPResponse with a BasicOCSPResponse
 * signed ecdsa-with-SHA384 by the issuing CA's own vault key (spec: "signs the response with the issuer's key",
 * ES384), so no delegated responder certificate exists; and the unsigned error responses.
 *
 *     OCSPResponse      ::= SEQUENCE { responseStatus ENUMERATED, responseBytes [0] EXPLICIT ResponseBytes OPTIONAL }
 *     ResponseBytes     ::= SEQUENCE { responseType OBJECT IDENTIFIER (id-pkix-ocsp-basic), response OCTET STRING }
 *     BasicOCSPResponse ::= SEQUENCE { tbsResponseData ResponseData, signatureAlgorithm, signature BIT STRING,
 *                                      certs [0] EXPLICIT SEQUENCE OF Certificate OPTIONAL }
 *     ResponseData      ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1 (omitted), responderID ResponderID,
 *                                      producedAt GeneralizedTime, responses SEQUENCE OF SingleResponse,
 *                                      responseExtensions [1] EXPLICIT Extensions OPTIONAL }
 *     ResponderID       ::= CHOICE { byName [1] Name, byKey [2] KeyHash }   -- byKey used here
 *     SingleResponse    ::= SEQUENCE { certID CertID, certStatus CertStatus, thisUpdate GeneralizedTime,
 *                                      nextUpdate [0] EXPLICIT GeneralizedTime OPTIONAL, ... }
 *     CertStatus        ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] IMPLICIT NULL }
 *     RevokedInfo       ::= SEQUENCE { revocationTime GeneralizedTime, revocationReason [0] EXPLICIT CRLReason OPTIONAL }
 *
 * The DER is assembled directly (der.ts) so that each SingleResponse carries the request's CertID byte for
 * byte, and signed through tbs-signer.ts (the shared vault signing path: raw r||s -> DER, checked).
 */
import { createHash } from 'node:crypto';
import type { VaultKey } from '../vault/types.js';
import { crlReasonCode, type CrlReason } from '../domain/crl-reasons.js';
import { TAG, concatBytes, encodeTlv } from './der.js';
import { OCSP_NONCE_OID, encodeOid, spkiPublicKeyBits } from './ocsp-request.js';
import { signAndAssemble } from './tbs-signer.js';

/** id-pkix-ocsp-basic. */
export const OCSP_BASIC_RESPONSE_OID = '1.3.6.1.5.5.7.48.1.1';

const OID_OCSP_BASIC = encodeOid(OCSP_BASIC_RESPONSE_OID);
const OID_OCSP_NONCE = encodeOid(OCSP_NONCE_OID);

const GENERALIZED_TIME = 0x18;

/** OCSPResponseStatus values (RFC 6960 section 4.2.1); 4 is unused. */
export const OCSP_RESPONSE_STATUS = {
  successful: 0,
  malformedRequest: 1,
  internalError: 2,
  tryLater: 3,
  sigRequired: 5,
  unauthorized: 6,
} as const;

export type OcspResponseStatusName = keyof typeof OCSP_RESPONSE_STATUS;
export type OcspErrorStatus = Exclude<OcspResponseStatusName, 'successful'>;

/** The status of one certificate, as the responder's status source reports it. */
export type OcspCertStatus =
  | { status: 'good' }
  | { status: 'revoked'; revokedAt: Date; reason?: CrlReason }
  | { status: 'unknown' };

export interface OcspSingleResponseInput {
  /** DER CertID, normally the request's own bytes (OcspCertId.der). */
  certId: Uint8Array;
  certStatus: OcspCertStatus;
  thisUpdate: Date;
  /** Omitted means "newer information is always available" (RFC 6960 section 4.2.2.1); RFC 5019 wants it set. */
  nextUpdate?: Date;
}

export interface BuildOcspResponseInput {
  /** The issuing CA's vault key: signs the response and names the responder (byKey). */
  signer: VaultKey;
  producedAt: Date;
  responses: readonly OcspSingleResponseInput[];
  /** extnValue contents of the request's nonce extension, echoed unchanged (OcspRequestInfo.nonce). */
  nonce?: Uint8Array;
  /** DER certificates for the `certs` field (not needed when the CA signs with its own key). */
  certs?: readonly Uint8Array[];
}

/**
 * DER GeneralizedTime "YYYYMMDDHHMMSSZ": UTC, whole seconds (RFC 5280 section 4.1.2.5.2 forbids fractions;
 * milliseconds are dropped).
 */
export function encodeGeneralizedTime(date: Date): Uint8Array {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('invalid date');
  const iso = new Date(ms - (((ms % 1000) + 1000) % 1000)).toISOString(); // 2026-01-02T03:04:05.000Z
  const year = iso.length === 24 ? iso.slice(0, 4) : '';
  if (!/^\d{4}$/.test(year)) throw new RangeError(`year of ${iso} does not fit a GeneralizedTime`);
  const text = `${year}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return encodeTlv(GENERALIZED_TIME, new TextEncoder().encode(text));
}

/** KeyHash of a responder (RFC 6960 section 4.2.1): SHA-1 of the subjectPublicKey BIT STRING contents. */
export function ocspResponderKeyHash(spki: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha1').update(spkiPublicKeyBits(spki)).digest());
}

function encodeCertStatus(s: OcspCertStatus): Uint8Array {
  switch (s.status) {
    case 'good':
      return Uint8Array.of(0x80, 0x00);
    case 'unknown':
      return Uint8Array.of(0x82, 0x00);
    case 'revoked': {
      const parts = [encodeGeneralizedTime(s.revokedAt)];
      if (s.reason !== undefined) {
        parts.push(encodeTlv(0xa0, Uint8Array.of(TAG.ENUMERATED, 0x01, crlReasonCode(s.reason))));
      }
      return encodeTlv(0xa1, ...parts);
    }
    default: {
      const never: never = s;
      throw new Error(`unknown certificate status ${JSON.stringify(never)}`);
    }
  }
}

function encodeSingleResponse(r: OcspSingleResponseInput): Uint8Array {
  const parts = [r.certId, encodeCertStatus(r.certStatus), encodeGeneralizedTime(r.thisUpdate)];
  if (r.nextUpdate) parts.push(encodeTlv(0xa0, encodeGeneralizedTime(r.nextUpdate)));
  return encodeTlv(TAG.SEQUENCE, ...parts);
}

/** The DER ResponseData (the bytes that get signed). */
export function encodeResponseData(input: Omit<BuildOcspResponseInput, 'signer' | 'certs'> & { responderKeyHash: Uint8Array }): Uint8Array {
  if (input.responses.length === 0) throw new RangeError('an OCSP response needs at least one SingleResponse');
  const parts = [
    encodeTlv(0xa2, encodeTlv(TAG.OCTET_STRING, input.responderKeyHash)),
    encodeGeneralizedTime(input.producedAt),
    encodeTlv(TAG.SEQUENCE, ...input.responses.map(encodeSingleResponse)),
  ];
  if (input.nonce) {
    const extension = encodeTlv(TAG.SEQUENCE, OID_OCSP_NONCE, encodeTlv(TAG.OCTET_STRING, input.nonce));
    parts.push(encodeTlv(0xa1, encodeTlv(TAG.SEQUENCE, extension)));
  }
  return encodeTlv(TAG.SEQUENCE, ...parts);
}

/** Wraps a DER BasicOCSPResponse in a successful OCSPResponse. */
export function wrapBasicResponse(basicDer: Uint8Array): Uint8Array {
  const responseBytes = encodeTlv(TAG.SEQUENCE, OID_OCSP_BASIC, encodeTlv(TAG.OCTET_STRING, basicDer));
  return encodeTlv(TAG.SEQUENCE, Uint8Array.of(TAG.ENUMERATED, 0x01, OCSP_RESPONSE_STATUS.successful), encodeTlv(0xa0, responseBytes));
}

/**
 * A successful OCSPResponse, signed by `signer` (one vault signature). The responderID is byKey, computed
 * from the signer's public key; pass `responderKeyHash` to skip recomputing it.
 */
export async function buildOcspResponse(input: BuildOcspResponseInput & { responderKeyHash?: Uint8Array }): Promise<Uint8Array> {
  const tbs = encodeResponseData({
    responderKeyHash: input.responderKeyHash ?? ocspResponderKeyHash(input.signer.publicKeySpki),
    producedAt: input.producedAt,
    responses: input.responses,
    nonce: input.nonce,
  });
  const trailing = input.certs?.length ? [encodeTlv(0xa0, encodeTlv(TAG.SEQUENCE, concatBytes(input.certs)))] : [];
  return wrapBasicResponse(await signAndAssemble(input.signer, tbs, ...trailing));
}

const ERROR_RESPONSES = new Map<OcspErrorStatus, Uint8Array>(
  (Object.keys(OCSP_RESPONSE_STATUS) as OcspResponseStatusName[])
    .filter((name): name is OcspErrorStatus => name !== 'successful')
    .map((name) => [name, Uint8Array.of(TAG.SEQUENCE, 0x03, TAG.ENUMERATED, 0x01, OCSP_RESPONSE_STATUS[name])]),
);

/** An unsuccessful OCSPResponse: the status alone, no responseBytes (RFC 6960 section 4.2.1). A fresh copy. */
export function ocspErrorResponse(status: OcspErrorStatus): Uint8Array {
  const der = ERROR_RESPONSES.get(status);
  if (!der) throw new RangeError(`not an OCSP error status: ${String(status)}`);
  return der.slice();
}
