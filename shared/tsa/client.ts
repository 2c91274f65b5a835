/**
 * An RFC 3161 client over HTTP (RFC 3161 section 3.4): POST application/timestamp-query, read an
 * application/timestamp-reply. It is the `Timestamper` every sign job hands to signAsset, so every C2PA
 * signature carries a sigTst2 timestamp.
 *
 * Each request carries a fresh 64-bit nonce and certReq (c2pa-rs needs the TSA certificate inside the token to
 * validate it). The reply must be `granted` (or grantedWithMods) and its token must stamp exactly the bytes
 * asked for (message imprint) with the same nonce; otherwise TimestampUnavailableError, which fails the sign
 * attempt so the queue retries it, rather than signing without a timestamp.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  buildTimeStampRequest,
  parseTimeStampResponse,
  TIMESTAMP_QUERY_TYPE,
  TIMESTAMP_REPLY_TYPE,
  TimeStampResponseError,
  type TsaHashAlgorithm,
} from './protocol.js';
import { checkTimeStampToken, TIMESTAMP_UNAVAILABLE, TimeStampTokenError } from './token-check.js';
import { TsaCertificateCheck } from './tsa-certificate.js';
import { ServiceError } from '../errors.js';

/** Returns an RFC 3161 TimeStampToken (DER) whose message imprint is a hash of `imprintInput`. */
export type Timestamper = (imprintInput: Uint8Array) => Promise<Uint8Array>;

/** Largest reply read: tokens with RSA chains are 4-6 KB; anything far beyond is not a TimeStampResp. */
const MAX_REPLY_BYTES = 256 * 1024;

/** The TSA could not be reached, refused, or answered with something unusable. The sign attempt is retried. */
export class TimestampUnavailableError extends ServiceError {
  constructor(
    message: string,
    readonly detail: { url: string; httpStatus?: number; pkiStatus?: string; failInfo?: string[] },
    options?: { cause?: unknown },
  ) {
    super('unavailable', 'timestamp_unavailable', message, { ...options, publicMessage: TIMESTAMP_UNAVAILABLE });
    this.name = 'TimestampUnavailableError';
  }
}

export interface HttpTimestamperOptions {
  /** The TSA address (TSA_URL). */
  url: string;
  /** Connect + reply, in milliseconds (TSA_TIMEOUT_MS). Default 10000. */
  timeoutMs?: number;
  /** Message imprint hash. Default sha256 (what every public TSA accepts). */
  hashAlgorithm?: TsaHashAlgorithm;
  /** Ask for this TSA policy (reqPolicy); default: the TSA's own. */
  policy?: string;
  /** For tests. */
  fetch?: typeof fetch;
}

export interface TimestampResult {
  token: Uint8Array;
  genTime: Date;
  serial: string;
}

/** A 64-bit positive nonce as INTEGER content octets (first octet 0x01..0x7f: minimal, no sign octet). */
function freshNonce(): Uint8Array {
  const nonce = new Uint8Array(randomBytes(8));
  nonce[0] = (nonce[0]! & 0x7f) | 0x01;
  return nonce;
}

/** Asks the TSA at `options.url` to stamp `imprintInput`; returns the checked token. */
export async function requestTimestamp(imprintInput: Uint8Array, options: HttpTimestamperOptions): Promise<TimestampResult> {
  const hashAlgorithm = options.hashAlgorithm ?? 'sha256';
  const nonce = freshNonce();
  const query = buildTimeStampRequest({
    hashAlgorithm,
    hashedMessage: createHash(hashAlgorithm).update(imprintInput).digest(),
    nonce,
    certReq: true,
    reqPolicy: options.policy,
  });
  const url = options.url;
  const fail = (message: string, detail: Partial<TimestampUnavailableError['detail']> = {}, cause?: unknown) =>
    new TimestampUnavailableError(`time-stamp authority ${url}: ${message}`, { url, ...detail }, { cause });

  let body: Uint8Array;
  let httpStatus: number;
  const post = () =>
    (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'Content-Type': TIMESTAMP_QUERY_TYPE, Accept: TIMESTAMP_REPLY_TYPE },
      body: new Uint8Array(query), // its own ArrayBuffer (BodyInit wants Uint8Array<ArrayBuffer>)
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  try {
    let res: Response;
    try {
      res = await post();
    } catch (err) {
      // A kept-alive connection the TSA closed just as we reused it: asked again once on a new connection.
      // Safe: a repeated query only makes the TSA issue another token, and the nonce ties the reply to it.
      if (!CLOSED_BEFORE_REPLY.has(describeFetchError(err))) throw err;
      res = await post();
    }
    httpStatus = res.status;
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > MAX_REPLY_BYTES) throw fail(`reply of ${declared} bytes is too large`, { httpStatus });
    body = new Uint8Array(await res.arrayBuffer());
    if (body.length > MAX_REPLY_BYTES) throw fail(`reply of ${body.length} bytes is too large`, { httpStatus });
  } catch (err) {
    if (err instanceof TimestampUnavailableError) throw err;
    const reason = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
      ? `no reply within ${options.timeoutMs ?? 10_000} ms`
      : `could not be reached (${describeFetchError(err)})`;
    throw fail(reason, {}, err);
  }

  let reply;
  try {
    reply = parseTimeStampResponse(body);
  } catch (err) {
    const what = err instanceof TimeStampResponseError ? err.message : String(err);
    throw fail(`HTTP ${httpStatus}, ${what}`, { httpStatus }, err);
  }
  if (reply.status !== 'granted' && reply.status !== 'grantedWithMods') {
    const why = [...reply.failInfo, ...reply.statusText].join('; ');
    throw fail(`refused (${reply.status}${why ? `: ${why}` : ''})`, { httpStatus, pkiStatus: reply.status, failInfo: reply.failInfo });
  }
  if (httpStatus !== 200) throw fail(`HTTP ${httpStatus} with a granted reply`, { httpStatus });
  if (!reply.tokenDer) throw fail('granted without a token', { httpStatus, pkiStatus: reply.status });

  let info;
  try {
    info = checkTimeStampToken(reply.tokenDer, imprintInput);
  } catch (err) {
    throw fail(err instanceof TimeStampTokenError ? err.message : String(err), { httpStatus }, err);
  }
  if (info.nonce !== Buffer.from(nonce).toString('hex')) throw fail('the token does not carry our nonce (a replayed or mixed-up reply)');
  if (options.policy && info.policy !== options.policy) throw fail(`the token is under policy ${info.policy}, not ${options.policy}`);
  return { token: reply.tokenDer, genTime: info.genTime, serial: info.serial };
}

/** undici's and the OS's words for a connection closed before any reply. */
const CLOSED_BEFORE_REPLY = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

function describeFetchError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}

/**
 * The Timestamper sign jobs use: an RFC 3161 request to the TSA at `options.url` per signature. The TSA's
 * certificate is checked against the C2PA TSA profile on its first token (again whenever the TSA changes it); one
 * that fails makes the attempt fail (retried as any TSA failure), so no file carries a timestamp validators refuse.
 */
export function httpTimestamper(options: HttpTimestamperOptions): Timestamper {
  const certificates = new TsaCertificateCheck();
  return async (imprintInput) => {
    const result = await requestTimestamp(imprintInput, options);
    const problems = certificates.problems(result.token, result.genTime);
    if (problems.length > 0) {
      throw new TimestampUnavailableError(`time-stamp authority ${options.url}: its certificate does not meet the C2PA TSA profile: ${problems.join('; ')}`, { url: options.url });
    }
    return result.token;
  };
}
