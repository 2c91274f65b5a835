/**
 * OCSP answers as the chain passes them on: signed answers with their status label, the shared error answers,
 * and the one place where a failure of the chain becomes an OCSP error status.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { kindOf, type ErrorKind } from '../shared/errors.js';
import { TAG, readChildren, readSingle, readTlv } from '../shared/pki/der.js';
import { ocspErrorResponse, type OcspErrorStatus } from '../shared/pki/ocsp-response.js';
import type { OcspErrorAnswer, OcspSignedAnswer, StoredOcspResponse } from './source.js';

export function signedAnswer(response: StoredOcspResponse, nonceEchoed: boolean, certStatus: string): OcspSignedAnswer {
  return { responseStatus: 'successful', ...response, nonceEchoed, sha1Hex: createHash('sha1').update(response.der).digest('hex'), certStatus };
}

const ERROR_ANSWERS = new Map<OcspErrorStatus, OcspErrorAnswer>();

/** The (shared, never mutated) answer for an OCSP error status. */
export function errorAnswer(status: OcspErrorStatus): OcspErrorAnswer {
  let answer = ERROR_ANSWERS.get(status);
  if (!answer) ERROR_ANSWERS.set(status, (answer = { responseStatus: status, der: ocspErrorResponse(status) }));
  return answer;
}

/** The OCSP edge: the error status of each kind of error (RFC 6960 section 4.2.1). */
export const OCSP_STATUS: Record<ErrorKind, OcspErrorStatus> = {
  invalid: 'malformedRequest',
  unauthenticated: 'sigRequired',
  forbidden: 'unauthorized',
  not_found: 'unauthorized',
  conflict: 'internalError',
  too_large: 'malformedRequest',
  unsupported: 'malformedRequest',
  unprocessable: 'malformedRequest',
  rate_limited: 'tryLater',
  unavailable: 'tryLater',
  internal: 'internalError',
};

/**
 * The answer for a failure of the chain, by its kind: a refusal (malformedRequest, unauthorized) as it is; overload
 * or a vault outage -> tryLater (logged as a warning); anything else -> internalError (logged as an error).
 */
export function failureAnswer(err: unknown, logger: Pick<Logger, 'warn' | 'error'> | undefined): OcspErrorAnswer {
  const status = OCSP_STATUS[kindOf(err)];
  if (status === 'tryLater') logger?.warn({ err }, 'OCSP responder answered tryLater');
  else if (status === 'internalError') logger?.error({ err }, 'OCSP responder failed');
  return errorAnswer(status);
}

/**
 * One status label for the certificate statuses of one response: their status when they all share one, else
 * 'multiple' (a response is one answer, counted once; mixed statuses in one request are rare).
 */
export function certStatusLabel(statuses: readonly string[]): string {
  return statuses.every((s) => s === statuses[0]) && statuses[0] !== undefined ? statuses[0] : 'multiple';
}

const CERT_STATUS_TAGS = new Map([
  [0x80, 'good'], // [0] IMPLICIT NULL
  [0xa1, 'revoked'], // [1] IMPLICIT RevokedInfo
  [0x82, 'unknown'], // [2] IMPLICIT UnknownInfo
]);

/**
 * The status label of a signed response read back from its DER (a response from the shared store, which keeps
 * no status column): OCSPResponse > responseBytes > BasicOCSPResponse > tbsResponseData > responses > certStatus.
 */
export function certStatusOfDer(der: Uint8Array): string {
  try {
    const [, bytesTag] = readChildren(der, readSingle(der, TAG.SEQUENCE));
    const responseBytes = readTlv(der, bytesTag!.contentStart, bytesTag!.end);
    const octets = readChildren(der, responseBytes)[1]!;
    const basic = der.subarray(octets.contentStart, octets.end);
    const tbs = readChildren(basic, readSingle(basic, TAG.SEQUENCE))[0]!;
    const responses = readChildren(basic, tbs).find((t) => t.tag === TAG.SEQUENCE)!;
    return certStatusLabel(readChildren(basic, responses).map((single) => CERT_STATUS_TAGS.get(readChildren(basic, single)[1]!.tag) ?? 'unparsed'));
  } catch {
    return 'unparsed'; // never expected: the service signed these bytes
  }
}
