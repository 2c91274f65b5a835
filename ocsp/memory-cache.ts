/**
 * The in-process cache of signed responses, one per exact set of CertIDs (in practice one CertID: issuer,
 * serial, hash algorithm), until nextUpdate. From the refresh point the next request still gets the cached
 * response at once and starts one background re-signing through the next source; an expired response is never
 * served. Concurrent misses for the same key share one fill. Fills (and refreshes) run at most
 * `maxConcurrentSignatures` at once with `maxQueuedSignatures` waiting; a miss beyond that is tryLater
 * (OcspOverloadedError). `invalidate(serial)` drops cached and in-flight responses for that serial.
 */
import type { Logger } from 'pino';
import { normalizeSerialHex } from '../shared/pki/serial.js';
import { Limiter } from './limits.js';
import { SerialIndex } from './serial-index.js';
import type { OcspCertId } from '../shared/pki/ocsp-request.js';
import type { OcspCertStatus } from '../shared/pki/ocsp-response.js';
import { OcspOverloadedError, positiveOption, type OcspIssuer, type OcspQuery, type OcspServed, type OcspSignedAnswer, type OcspSource } from './source.js';

/** The cache key of a set of CertIDs: their exact DER, in request order. */
export function certIdsKey(certIds: readonly OcspCertId[]): string {
  let key = '';
  for (const certId of certIds) key += Buffer.from(certId.der.buffer, certId.der.byteOffset, certId.der.byteLength).toString('latin1');
  return key;
}

/** A serial to invalidate (any form normalizeSerialHex accepts, or a negative "-" + hex) as CertIDs carry it. */
export function invalidationSerial(serialHex: string): string {
  return serialHex.startsWith('-') ? serialHex.toLowerCase() : normalizeSerialHex(serialHex);
}

export interface MemoryCacheOptions {
  /** After a failed background re-signing, wait this long before the next try. Default 30. */
  refreshRetrySeconds?: number;
  /** Concurrent fills and refreshes (each a vault signature, or a shared-store read). Default 8. */
  maxConcurrentSignatures?: number;
  /** Cache fills waiting for a slot; beyond this: tryLater. Default 1000. */
  maxQueuedSignatures?: number;
  /** Cached responses kept (when full, one not served for longest is dropped: CLOCK, close to LRU). Default 100000. */
  maxCachedResponses?: number;
}

interface CacheEntry {
  answer: OcspSignedAnswer;
  /** What `answer` was signed with, when this process looked it up (not for an answer from the shared store). */
  statuses: readonly OcspCertStatus[] | undefined;
  serials: string[];
  refreshAt: number;
  expiresAt: number;
  retryAt: number;
  /** Served since it was (re)inserted: spared once by eviction (see put()). */
  used: boolean;
}

interface InFlight {
  promise: Promise<OcspSignedAnswer>;
  serials: string[];
}

export class MemoryCache<I extends OcspIssuer> implements OcspSource<I> {
  private readonly refreshAfterMs: number;
  private readonly retryMs: number;
  private readonly maxCached: number;
  private readonly fills: Limiter;
  private readonly now: () => number;
  private readonly logger: Pick<Logger, 'warn'> | undefined;
  /**
   * Insertion order, oldest first. A hit only marks its entry `used`; eviction gives used entries a second
   * chance (CLOCK, an approximation of LRU). A hit never deletes and re-inserts its key: V8 leaves a deleted
   * Map entry in its hash chain until the table is rebuilt, so re-inserting one hot key on every request
   * made its lookups walk thousands of dead entries (10,000 cached responses: a hot certificate was answered
   * at about half the rate of 10,000 distinct ones; bench/pki/run.ts).
   */
  private readonly entries = new Map<string, CacheEntry>();
  private readonly serials = new SerialIndex();
  private readonly inFlight = new Map<string, InFlight>();
  readonly counters = { cacheHits: 0, cacheMisses: 0 };

  constructor(
    options: MemoryCacheOptions & { refreshAfterMs: number; now: () => number; logger?: Pick<Logger, 'warn'> },
    private readonly next: OcspSource<I>,
  ) {
    this.retryMs = positiveOption('refreshRetrySeconds', options.refreshRetrySeconds, 30) * 1000;
    this.maxCached = positiveOption('maxCachedResponses', options.maxCachedResponses, 100_000);
    this.fills = new Limiter(positiveOption('maxConcurrentSignatures', options.maxConcurrentSignatures, 8), options.maxQueuedSignatures ?? 1000);
    this.refreshAfterMs = options.refreshAfterMs;
    this.now = options.now;
    this.logger = options.logger;
  }

  get size(): number {
    return this.entries.size;
  }

  async answer(query: OcspQuery<I>): Promise<OcspServed> {
    const key = certIdsKey(query.certIds);
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && now < entry.expiresAt) {
      this.counters.cacheHits++;
      entry.used = true;
      if (now >= entry.refreshAt && now >= entry.retryAt && !this.inFlight.has(key)) {
        // Set before the attempt, not when it fails: requests arriving while a failure is still on its way
        // must not start more attempts. A successful refresh replaces the entry.
        entry.retryAt = now + this.retryMs;
        this.fill(key, query)?.catch((err: unknown) => {
          this.logger?.warn({ err }, 'OCSP background re-signing failed; serving the cached response');
        });
      }
      return { answer: entry.answer, hit: true };
    }
    this.counters.cacheMisses++;
    const flight = this.inFlight.get(key)?.promise ?? this.fill(key, query);
    if (!flight) throw new OcspOverloadedError();
    return { answer: await flight, hit: false };
  }

  /**
   * The statuses of the cached answer for `query`'s CertIDs while it is before its refresh point (as current as
   * the answer this cache serves: a revocation drops it), when this process looked them up.
   */
  currentStatuses(query: OcspQuery<I>): readonly OcspCertStatus[] | undefined {
    const entry = this.entries.get(certIdsKey(query.certIds));
    return entry && this.now() < entry.refreshAt ? entry.statuses : undefined;
  }

  /**
   * Forgets cached and in-flight responses for a serial (any form normalizeSerialHex accepts), or all of them.
   * An answer whose fill started before the call is returned to its waiting requests but not cached.
   */
  invalidate(serialHex?: string): void {
    if (serialHex === undefined) {
      this.entries.clear();
      this.serials.clear();
      this.inFlight.clear();
      return;
    }
    const serial = invalidationSerial(serialHex);
    for (const key of this.serials.keysOf(serial)) this.forget(key);
    for (const [key, flight] of this.inFlight) if (flight.serials.includes(serial)) this.inFlight.delete(key);
  }

  /** Starts one fill for `key` (shared by everyone who asks meanwhile); undefined when the queue is full. */
  private fill(key: string, query: OcspQuery<I>): Promise<OcspSignedAnswer> | undefined {
    const run = this.fills.run(() => this.next.answer(query));
    if (!run) return undefined;
    const serials = query.certIds.map((certId) => certId.serialHex);
    const flight: InFlight = {
      serials,
      promise: run.then(
        ({ answer, statuses }) => {
          // Skip storing when invalidate() ran meanwhile: the answer may predate a revocation.
          if (this.inFlight.get(key) === flight) {
            this.inFlight.delete(key);
            this.put(key, serials, answer, statuses);
          }
          return answer;
        },
        (err: unknown) => {
          if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
          throw err;
        },
      ),
    };
    this.inFlight.set(key, flight);
    return flight.promise;
  }

  private put(key: string, serials: string[], answer: OcspSignedAnswer, statuses: readonly OcspCertStatus[] | undefined): void {
    this.forget(key);
    while (this.entries.size >= this.maxCached) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) break;
      const [oldestKey, entry] = oldest;
      if (entry.used) {
        // Served since it was queued: second chance, to the back of the queue (once per pass of the queue).
        entry.used = false;
        this.entries.delete(oldestKey);
        this.entries.set(oldestKey, entry);
        continue;
      }
      this.forget(oldestKey);
    }
    this.entries.set(key, {
      answer,
      statuses,
      serials,
      refreshAt: answer.thisUpdate.getTime() + this.refreshAfterMs,
      expiresAt: answer.nextUpdate.getTime(),
      retryAt: 0,
      used: false,
    });
    this.serials.add(key, serials);
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.serials.remove(key, entry.serials);
  }
}
