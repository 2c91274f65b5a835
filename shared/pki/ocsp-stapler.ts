/**
 * The OCSP answer a signature carries (C2PA: `rVals.ocspVals` in the COSE unprotected header, shared/c2pa/
 * revocation-values.ts), so a validator knows the signing certificate was good when it signed, without asking anyone.
 *
 * The answer is asked of the responder the signing certificate names (its AIA OCSP address): for the service's own
 * certificates that is the service's responder; for an organisation's certificate from an external CA it is that CA's,
 * reached only through the outbound guard (shared/net/guarded-fetch.ts: public addresses, no redirects, bounded).
 * It is checked (signed by the CA or its delegated responder, for this certificate, current) and kept until its
 * nextUpdate, so a certificate costs one request per responder window per process. When no answer can be had the
 * signature goes on without one: stapling is evidence, not a condition of signing. Every outcome is counted in
 * mss_ocsp_staples_total.
 */
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { ocspStaples } from '../metrics/metrics.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import { readCertificate } from './certificate.js';
import { checkOcspAnswer, OcspAnswerError } from './ocsp-answer.js';
import { certIdFor, encodeOcspRequest } from './ocsp-request.js';

export interface StapleSubject {
  /** Leaf first, then its issuer. */
  chainDer: readonly Uint8Array[];
  /** The certificate comes from an external CA: its responder is reached through the outbound guard. */
  external?: boolean;
}

export interface OcspStaplerOptions {
  /** For one request, connection and answer. */
  timeoutMs: number;
  /** Let an external responder on a private or loopback address through (tests and development). */
  allowPrivate: boolean;
  logger?: Pick<Logger, 'warn'>;
  /** Clock in milliseconds, for tests. */
  now?: () => number;
}

type MissingReason = 'no_responder' | 'unreachable' | 'invalid_answer';

class StapleMissing extends Error {
  constructor(readonly reason: MissingReason, message: string) {
    super(message);
  }
}

/** Largest OCSP answer read: ours is under 2 KB; a responder embedding an RSA chain a few KB. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** After a failure a certificate's responder is not asked again for this long (each signature would wait for it). */
const RETRY_AFTER_FAILURE_MS = 30_000;
/** Allowed clock difference with the responder: an answer whose thisUpdate is a little ahead of us is taken. */
const CLOCK_SKEW_MS = 5 * 60_000;

interface Cached {
  der: Uint8Array;
  /** Kept until then (the answer's nextUpdate). */
  until: number;
}

/** The AIA OCSP address of a certificate (the first http(s) one), if it names any. */
export function ocspUrlOf(certificateDer: Uint8Array): string | undefined {
  const access = new X509Certificate(Buffer.from(certificateDer)).infoAccess ?? '';
  for (const line of access.split('\n')) {
    const m = /^OCSP - URI:(https?:\/\/\S+)$/.exec(line.trim());
    if (m) return m[1];
  }
  return undefined;
}

export class OcspStapler {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Cached>>();
  private readonly failedAt = new Map<string, { at: number; error: StapleMissing }>();
  private readonly now: () => number;

  constructor(private readonly options: OcspStaplerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The DER OCSPResponse to staple for the chain's leaf, or undefined (logged and counted) when there is none to be had. */
  async staple(subject: StapleSubject): Promise<Uint8Array | undefined> {
    const [leaf, issuer] = subject.chainDer;
    if (!leaf || !issuer) return this.missing(new StapleMissing('no_responder', 'the chain has no issuer certificate'));
    const key = readCertificate(leaf).facts.fingerprintSha256;
    const cached = this.cache.get(key);
    if (cached && this.now() < cached.until) {
      ocspStaples.inc({ outcome: 'stapled', reason: 'cache' });
      return cached.der;
    }
    const failed = this.failedAt.get(key);
    if (failed && this.now() - failed.at < RETRY_AFTER_FAILURE_MS) return this.missing(failed.error, key);
    let fetching = this.inFlight.get(key);
    if (!fetching) {
      fetching = this.fetch(leaf, issuer, subject.external === true).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, fetching);
    }
    try {
      const fresh = await fetching;
      this.cache.set(key, fresh);
      this.failedAt.delete(key);
      ocspStaples.inc({ outcome: 'stapled', reason: 'fetched' });
      return fresh.der;
    } catch (err) {
      const error = err instanceof StapleMissing ? err : new StapleMissing('unreachable', (err as Error).message);
      this.failedAt.set(key, { at: this.now(), error });
      this.cache.delete(key);
      return this.missing(error, key);
    }
  }

  private missing(error: StapleMissing, certificate?: string): undefined {
    ocspStaples.inc({ outcome: 'missing', reason: error.reason });
    this.options.logger?.warn({ reason: error.reason, why: error.message, certificate }, 'signing without a stapled OCSP answer');
    return undefined;
  }

  private async fetch(leaf: Uint8Array, issuer: Uint8Array, external: boolean): Promise<Cached> {
    const url = ocspUrlOf(leaf);
    if (!url) throw new StapleMissing('no_responder', 'the signing certificate names no OCSP responder');
    const request = encodeOcspRequest([certIdFor(issuer, readCertificate(leaf).facts.serialHex)]);
    const der = external ? await this.askGuarded(url, request) : await this.askOwn(url, request);
    let facts;
    try {
      facts = checkOcspAnswer(der, leaf, issuer);
    } catch (err) {
      if (err instanceof OcspAnswerError) throw new StapleMissing('invalid_answer', err.message);
      throw err;
    }
    const now = this.now();
    if (facts.thisUpdate.getTime() > now + CLOCK_SKEW_MS) throw new StapleMissing('invalid_answer', 'the answer is dated in the future');
    // An answer without nextUpdate says newer information is always there: used for this signature, not kept.
    const until = facts.nextUpdate?.getTime() ?? now;
    if (facts.nextUpdate && until <= now) throw new StapleMissing('invalid_answer', 'the answer is past its nextUpdate');
    return { der, until };
  }

  /** The service's own responder: its address is the operator's (OCSP_URL), not a user's, so no outbound guard. */
  private async askOwn(url: string, request: Uint8Array): Promise<Uint8Array> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: Buffer.from(request),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      throw new StapleMissing('unreachable', `the OCSP responder ${url} did not answer: ${(err as Error).message}`);
    }
    if (!res.ok) throw new StapleMissing('unreachable', `the OCSP responder ${url} answered HTTP ${res.status}`);
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.byteLength > MAX_ANSWER_BYTES) throw new StapleMissing('invalid_answer', 'the answer is too large');
    return body;
  }

  /** An external CA's responder: a URL from a certificate someone else issued, so through the outbound guard. */
  private async askGuarded(url: string, request: Uint8Array): Promise<Uint8Array> {
    let res;
    try {
      res = await guardedFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/ocsp-request' },
        body: request,
        allowPrivate: this.options.allowPrivate,
        allowHttp: true, // OCSP is served over plain http (RFC 5019); the answer is signed
        maxRedirects: 0,
        timeoutMs: this.options.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      });
    } catch (err) {
      throw new StapleMissing('unreachable', `the OCSP responder ${url} could not be asked: ${(err as Error).message}`);
    }
    if (res.status !== 200) throw new StapleMissing('unreachable', `the OCSP responder ${url} answered HTTP ${res.status}`);
    return new Uint8Array(res.body);
  }
}
