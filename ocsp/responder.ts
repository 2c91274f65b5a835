/**
 * The OCSP responder: request bytes in, an answer out, never a throw. It knows nothing of HTTP or the database:
 * it is given the CAs it answers for (certificate + vault key), a status lookup and optionally a shared store,
 * and composes the chain of sources (ocsp/source.ts), each in a file of its own:
 *
 *   IssuerFilter (issuer-filter.ts)  which CA; unauthorized / malformedRequest
 *   NonceSource  (nonce-source.ts)   a nonce echoed in a fresh signature, under its budget   (nonces: 'echo')
 *   MemoryCache  (memory-cache.ts)   this process's signed responses, refreshes, invalidation
 *   StoreSource  (store-source.ts)   responses shared with the other copies                  (with `store`)
 *   LiveSigner   (live-signer.ts)    status lookup + one vault signature
 *
 * A failure anywhere is answered once, here, by its kind (ocsp/answers.ts failureAnswer): malformedRequest or
 * unauthorized for a refusal, tryLater for overload or a vault outage, internalError otherwise. Answers are counted in the metrics by the HTTP edge (ocsp/server.ts).
 */
import type { Logger } from 'pino';
import { decodeOcspRequest, type OcspRequestInfo } from '../shared/pki/ocsp-request.js';
import { failureAnswer } from './answers.js';
import { IssuerFilter, type IssuerFilterOptions } from './issuer-filter.js';
import type { RateSnapshot } from './limits.js';
import { LiveSigner, type LiveSignerOptions } from './live-signer.js';
import { MemoryCache, type MemoryCacheOptions } from './memory-cache.js';
import { NonceSource, type NonceOptions } from './nonce-source.js';
import { positiveOption, type OcspAnswer, type OcspIssuer, type OcspReply, type OcspResponseStore } from './source.js';
import { StoreSource } from './store-source.js';

export interface OcspResponderOptions<I extends OcspIssuer = OcspIssuer>
  extends IssuerFilterOptions<I>, LiveSignerOptions<I>, MemoryCacheOptions, NonceOptions {
  /** Age after which a cached response is re-signed in the background. Default validitySeconds / 2. */
  refreshAfterSeconds?: number;
  /** 'echo' (default): a request nonce is echoed in a freshly signed response; 'ignore': always cached. */
  nonces?: 'echo' | 'ignore';
  /**
   * Pre-signed responses shared with the other responder processes (ocsp/response-store.ts). Without it the
   * chain has no store source.
   */
  store?: OcspResponseStore;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

export interface OcspResponderStats {
  cachedResponses: number;
  cacheHits: number;
  cacheMisses: number;
  /** Vault signatures requested by this responder (cache fills, refreshes and nonce responses). */
  signatures: number;
  /** Cache fills and refreshes answered from the shared store, without a signature. */
  storeHits: number;
  nonceResponses: number;
  /** Nonce requests answered from the cache without a nonce because the nonce budget (rate, queue) was exhausted. */
  nonceFallbacks: number;
}

export class OcspResponder<I extends OcspIssuer = OcspIssuer> {
  private readonly filter: IssuerFilter<I>;
  private readonly signer: LiveSigner<I>;
  private readonly cache: MemoryCache<I>;
  private readonly store: StoreSource<I> | undefined;
  private readonly nonces: NonceSource<I> | undefined;
  private readonly logger: Pick<Logger, 'warn' | 'error'> | undefined;
  /** Age of a signed response from which it is re-signed: copies of it held elsewhere are fresh until then. */
  readonly refreshAfterMs: number;

  constructor(options: OcspResponderOptions<I>) {
    const now = options.now ?? Date.now;
    const logger = options.logger;
    this.logger = logger;
    this.signer = new LiveSigner({ ...options, now });
    const validityMs = this.signer.validityMs;
    const refreshAfterMs = positiveOption('refreshAfterSeconds', options.refreshAfterSeconds, validityMs / 2000) * 1000;
    if (refreshAfterMs >= validityMs) throw new RangeError('OcspResponder: refreshAfterSeconds must be below validitySeconds');
    this.refreshAfterMs = refreshAfterMs;
    this.store = options.store ? new StoreSource(options.store, { refreshAfterMs, now, logger }, this.signer) : undefined;
    this.cache = new MemoryCache({ ...options, refreshAfterMs, now, logger }, this.store ?? this.signer);
    this.nonces = (options.nonces ?? 'echo') === 'echo' ? new NonceSource(options, now, this.signer, this.cache) : undefined;
    this.filter = new IssuerFilter(options, this.nonces ?? this.cache);
  }

  /** Answers a DER OCSPRequest, with whether it came from this process's cache. Never throws. */
  async serve(requestDer: Uint8Array): Promise<OcspReply> {
    let request: OcspRequestInfo;
    try {
      request = decodeOcspRequest(requestDer);
    } catch (err) {
      return { answer: failureAnswer(err, this.logger), hit: false };
    }
    try {
      return await this.filter.answer(request);
    } catch (err) {
      return { answer: failureAnswer(err, this.logger), hit: false };
    }
  }

  /** Answers a DER OCSPRequest. Never throws: every failure becomes an OCSP error response. */
  async respond(requestDer: Uint8Array): Promise<OcspAnswer> {
    return (await this.serve(requestDer)).answer;
  }

  /**
   * Forgets cached and in-flight responses for a serial (any form normalizeSerialHex accepts), or all of them.
   * Call it when a certificate's status changes, in every responder process (the ocsp role does on each
   * revocation notice); without it a cached "good" lives until its refresh point.
   */
  invalidate(serialHex?: string): void {
    this.cache.invalidate(serialHex);
  }

  /**
   * The nonce rate's token bucket now: while it holds no whole token, a request with a nonce is answered from the
   * cache without it. With `nonces: 'ignore'` a bucket that never fills.
   */
  nonceBudget(): RateSnapshot {
    return this.nonces?.budget() ?? { rate: 0, tokens: 0, at: 0 };
  }

  stats(): OcspResponderStats {
    return {
      cachedResponses: this.cache.size,
      ...this.cache.counters,
      signatures: this.signer.signatures,
      storeHits: this.store?.storeHits ?? 0,
      nonceResponses: this.nonces?.counters.nonceResponses ?? 0,
      nonceFallbacks: this.nonces?.counters.nonceFallbacks ?? 0,
    };
  }
}
