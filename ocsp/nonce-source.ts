/**
 * Nonces: RFC 5019 lets responders ignore them, but the service echoes a request nonce (RFC 8954 lengths: 0 or
 * more than 32 octets -> malformedRequest) in a freshly signed response. A nonce defeats any cache, so each
 * such request costs a vault signature, and a status lookup unless the cache holds the statuses of an answer it
 * would serve (before its refresh point; dropped on revocation as that answer is, so no older than the answer a
 * request without a nonce gets); that work runs under its own budget: a rate
 * (default 50 per second, bursts as large) and a small concurrency and queue (for a slow vault). When the
 * budget is exhausted the request goes on to the next source (the cache) and is answered without a nonce
 * (RFC 5019 and RFC 8954 let a responder answer without one; a client that insists on a nonce treats that as a
 * failed check, the others accept it), so a flood of nonce requests can neither exhaust the vault's rate limits
 * nor starve cached answers. Not in the chain with `nonces: 'ignore'`.
 */
import { unwrapOctetString } from '../shared/pki/ocsp-request.js';
import { Limiter, RateLimit, type RateSnapshot } from './limits.js';
import type { LiveSigner } from './live-signer.js';
import type { MemoryCache } from './memory-cache.js';
import { OcspRefusedError, positiveOption, type OcspIssuer, type OcspQuery, type OcspServed, type OcspSource } from './source.js';

export interface NonceOptions {
  /** Concurrent vault signatures for nonce responses. Default 4. */
  maxConcurrentNonceSignatures?: number;
  /** Nonce responses waiting for a slot; beyond this the cached response (no nonce) is sent. Default 32. */
  maxQueuedNonceSignatures?: number;
  /**
   * Sustained rate of nonce responses per second (bursts up to the same number); beyond it the cached response
   * (no nonce) is sent. Bounds vault calls and CPU when the vault is fast, where the concurrency limits above
   * never fill. Size it from the vault's throttling limit shared by all responder processes. Default 50.
   */
  nonceSignaturesPerSecond?: number;
}

const NONCE_MAX_OCTETS = 32;

/** Refuses (malformedRequest) a nonce outside RFC 8954's lengths: 0 octets or more than 32. */
export function checkNonceLength(requestNonce: Uint8Array): void {
  const value = unwrapOctetString(requestNonce) ?? requestNonce;
  if (value.length === 0 || value.length > NONCE_MAX_OCTETS) throw new OcspRefusedError('malformedRequest', 'nonce length outside RFC 8954 bounds');
}

export class NonceSource<I extends OcspIssuer> implements OcspSource<I> {
  private readonly signs: Limiter;
  private readonly rate: RateLimit;
  readonly counters = { nonceResponses: 0, nonceFallbacks: 0 };

  constructor(options: NonceOptions, now: () => number, private readonly signer: LiveSigner<I>, private readonly next: MemoryCache<I>) {
    this.signs = new Limiter(positiveOption('maxConcurrentNonceSignatures', options.maxConcurrentNonceSignatures, 4), options.maxQueuedNonceSignatures ?? 32);
    this.rate = new RateLimit(positiveOption('nonceSignaturesPerSecond', options.nonceSignaturesPerSecond, 50), now);
  }

  answer(query: OcspQuery<I>): Promise<OcspServed> {
    return query.nonce ? this.echo(query, query.nonce) : this.next.answer(query);
  }

  /** The rate's bucket now: what a copy elsewhere needs to tell when a nonce would be signed here. */
  budget(): RateSnapshot {
    return this.rate.snapshot();
  }

  private async echo(query: OcspQuery<I>, requestNonce: Uint8Array): Promise<OcspServed> {
    checkNonceLength(requestNonce);
    const nonce = requestNonce.slice();
    const fresh = this.rate.take() ? this.signs.run(() => this.signer.sign(query, nonce, this.next.currentStatuses(query))) : undefined;
    if (fresh) {
      this.counters.nonceResponses++;
      return { answer: await fresh, hit: false };
    }
    this.counters.nonceFallbacks++;
    return this.next.answer(query);
  }
}
