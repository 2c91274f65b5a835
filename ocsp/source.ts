/**
 * What the OCSP responder's sources speak (Boulder's `Source`): each source answers a query whose issuer is
 * already known, or hands it to the next one; failures are thrown and turned into OCSP error statuses once, at
 * the edge (ocsp/answers.ts `failureAnswer`). The chain is composed in ocsp/responder.ts:
 *
 *   issuer filter -> nonce -> in-memory cache -> shared store -> live signer
 */
import { ServiceError, type ErrorKind } from '../shared/errors.js';
import type { OcspCertId } from '../shared/pki/ocsp-request.js';
import type { OcspCertStatus, OcspErrorStatus } from '../shared/pki/ocsp-response.js';
import type { VaultKey } from '../shared/vault/types.js';

/** A CA the responder answers for. Extra fields (an id, a name) are passed back to the status lookup. */
export interface OcspIssuer {
  /** The CA's certificate, DER. */
  certificate: Uint8Array;
  /** The CA's key in the vault (signs the responses); must hold the certificate's public key. */
  key: VaultKey;
  /**
   * The CA's delegated responder (RFC 6960 4.2.2.2: EKU OCSPSigning, issued by this CA): when present it signs the
   * responses for this CA's certificates instead of the CA key, and its certificate is embedded in each (`certs`).
   */
  responder?: { certificate: Uint8Array; key: VaultKey };
}

/**
 * Status of `serialHex` (canonical form of shared/pki/serial.ts: lowercase hex, no sign octet; a negative
 * serial arrives as "-" + hex) among the certificates issued by `issuer`. Serials the service never issued:
 * whatever the caller decides (spec: good; config OCSP_UNISSUED_STATUS may say unknown).
 */
export type OcspStatusLookup<I extends OcspIssuer = OcspIssuer> = (issuer: I, serialHex: string) => Promise<OcspCertStatus>;

/** An issuer as the sources use it: the caller's issuer and the responderID it signs under. */
export interface MatchedIssuer<I extends OcspIssuer = OcspIssuer> {
  issuer: I;
  /** SHA-1 of the signing key's BIT STRING contents (responderID byKey): the delegated responder's, else the CA's. */
  responderKeyHash: Uint8Array;
}

/** A request past the issuer filter: every CertID belongs to `issuer`. */
export interface OcspQuery<I extends OcspIssuer = OcspIssuer> {
  issuer: MatchedIssuer<I>;
  certIds: readonly OcspCertId[];
  /** extnValue of the request's nonce extension, when present. Only the nonce source reads it. */
  nonce?: Uint8Array;
}

/** A signed, successful response. */
export interface OcspSignedAnswer {
  responseStatus: 'successful';
  der: Uint8Array;
  producedAt: Date;
  thisUpdate: Date;
  nextUpdate: Date;
  /** True when the response echoes the request's nonce (then it must not be stored by HTTP caches). */
  nonceEchoed: boolean;
  /** Hex SHA-1 of `der` (RFC 5019 section 6.2 suggests it as the HTTP ETag). */
  sha1Hex: string;
  /** good, revoked or unknown; 'multiple' when the CertIDs of one response differ. The metric's status label. */
  certStatus: string;
}

/** An unsigned error response. */
export interface OcspErrorAnswer {
  responseStatus: OcspErrorStatus;
  der: Uint8Array;
}

export type OcspAnswer = OcspSignedAnswer | OcspErrorAnswer;

/** What a source gives back; `hit`: served from this process's in-memory cache. */
export interface OcspServed {
  answer: OcspSignedAnswer;
  hit: boolean;
  /** The statuses `answer` was signed with, one per CertID, when this process just looked them up. */
  statuses?: readonly OcspCertStatus[];
}

/** What the edge gives back: any answer, errors included. */
export interface OcspReply {
  answer: OcspAnswer;
  hit: boolean;
}

/** One link of the chain. Rejects on failure (see ocsp/answers.ts for how failures are answered). */
export interface OcspSource<I extends OcspIssuer = OcspIssuer> {
  answer(query: OcspQuery<I>): Promise<OcspServed>;
}

/** A signed response as kept in an OcspResponseStore. */
export interface StoredOcspResponse {
  der: Uint8Array;
  producedAt: Date;
  thisUpdate: Date;
  nextUpdate: Date;
}

/** Shared storage of pre-signed responses, one per CertID (hex of its DER). */
export interface OcspResponseStore {
  get(certIdHex: string): Promise<StoredOcspResponse | undefined>;
  /** `good`: the response says good (a store keeps such a response only while the certificate is unrevoked). */
  put(certIdHex: string, serialHex: string, response: StoredOcspResponse, good: boolean): Promise<void>;
}

type OcspRefusal = Extract<OcspErrorStatus, 'malformedRequest' | 'unauthorized'>;

const REFUSALS: Record<OcspRefusal, [ErrorKind, string]> = { malformedRequest: ['invalid', 'malformed_request'], unauthorized: ['forbidden', 'unauthorized'] };

/** The request is answered with an OCSP error status (malformedRequest, unauthorized) by decision, not failure. */
export class OcspRefusedError extends ServiceError {
  constructor(readonly status: OcspRefusal, why: string) {
    super(...REFUSALS[status], why);
    this.name = 'OcspRefusedError';
  }
}

/** The responder is at its signing limit. Answered as tryLater. */
export class OcspOverloadedError extends ServiceError {
  constructor() {
    super('unavailable', 'ocsp_overloaded', 'OCSP responder signing queue is full');
    this.name = 'OcspOverloadedError';
  }
}

/** A positive finite option value, or its default. */
export function positiveOption(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`OcspResponder: ${name} must be a positive number, got ${v}`);
  return v;
}
