/**
 * The OCSP responder core: request bytes in, response bytes out. It knows nothing of HTTP or the database:
 * it is given the CAs it answers for (certificate + vault key) and a status lookup, and it never throws.
 *
 * - Issuer: found by issuerKeyHash (spec rule 1) under SHA-1 (what c2pa-rs and OpenSSL send), SHA-256, SHA-384
 *   or SHA-512, with issuerNameHash checked too. A CertID of a CA not in the list -> unauthorized; so is a
 *   request whose CertIDs belong to different CAs (one response carries one signature, and only the issuing
 *   CA's key is accepted by clients for its certificates).
 * - Signing: each response is signed by the issuing CA's own vault key, ES384 (spec rule 3), responderID byKey.
 * - Cache: a signed response is kept per exact set of CertIDs (in practice one CertID: issuer, serial, hash
 *   algorithm), valid `validitySeconds` (nextUpdate - thisUpdate, default 1 day as RFC 5019 responders use).
 *   After `refreshAfterSeconds` (default half the validity) the next request still gets the cached response
 *   at once and triggers one background re-signing; an expired response is never served. Concurrent misses
 *   for the same key share one signature. So the vault signs once per certificate and validity window, not
 *   once per request. With a shared `store`, once per window for all responder processes together.
 * - Revocation: `invalidate(serial)` drops cached and in-flight responses for that serial, so the next request
 *   is answered from a fresh status lookup. The process that records a revocation must cause this call in
 *   every responder process (e.g. Postgres LISTEN/NOTIFY or a Redis channel); without it a cached "good"
 *   lives until its refresh point.
 * - Nonces: RFC 5019 lets responders ignore them, but the service echoes a request nonce (RFC 8954 lengths:
 *   0 or more than 32 octets -> malformedRequest). A nonce defeats any cache, so each such request costs a
 *   status lookup and a vault signature; that work runs under its own budget: a rate (default 50 per second,
 *   bursts as large) and a small concurrency and queue (for a slow vault). When the budget is exhausted the
 *   request gets the cached response without a nonce (RFC 5019 and RFC 8954 let a responder answer without
 *   one; a client that insists on a nonce treats that as a failed check, the others accept it), so a flood of
 *   nonce requests can neither exhaust the vault's rate limits nor starve cached answers.
 * - Load: cache fills also have a bounded concurrency and queue; beyond the queue the answer is tryLater.
 *   A vault outage (VaultUnavailableError) -> tryLater; any other failure -> internalError (logged).
 * - Metrics: every answer counts once in mss_ocsp_responses_total{status, cache} (countOcspAnswer): status is the
 *   certificate status (good, revoked, unknown) of a successful response or the OCSP error status; cache is hit
 *   when the answer came from this process's pre-signed cache, miss otherwise (signed by the vault, read from the
 *   shared store, a nonce response, an error).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { ocspResponses } from '../shared/metrics/metrics.js';
import { TAG, bytesEqual, readChildren, readSingle, readTlv } from '../shared/pki/der.js';
import {
  OCSP_HASH_ALGORITHMS,
  OcspMalformedRequestError,
  certificateNameAndKey,
  decodeOcspRequest,
  unwrapOctetString,
  type OcspCertId,
  type OcspHashAlgorithm,
  type OcspRequestInfo,
} from '../shared/pki/ocsp-request.js';
import {
  buildOcspResponse,
  ocspErrorResponse,
  ocspResponderKeyHash,
  type OcspCertStatus,
  type OcspErrorStatus,
} from '../shared/pki/ocsp-response.js';
import { normalizeSerialHex } from '../shared/pki/serial.js';
import { samePublicKey } from '../shared/pki/tbs-signer.js';
import { VaultUnavailableError, type VaultKey } from '../shared/vault/types.js';

/** A CA the responder answers for. Extra fields (an id, a name) are passed back to the status lookup. */
export interface OcspIssuer {
  /** The CA's certificate, DER. */
  certificate: Uint8Array;
  /** The CA's key in the vault (signs the responses); must hold the certificate's public key. */
  key: VaultKey;
}

/**
 * Status of `serialHex` (canonical form of shared/pki/serial.ts: lowercase hex, no sign octet; a negative
 * serial arrives as "-" + hex) among the certificates issued by `issuer`. Serials the service never issued:
 * whatever the caller decides (spec: good; config OCSP_UNISSUED_STATUS may say unknown).
 */
export type OcspStatusLookup<I extends OcspIssuer = OcspIssuer> = (issuer: I, serialHex: string) => Promise<OcspCertStatus>;

export interface OcspResponderOptions<I extends OcspIssuer = OcspIssuer> {
  issuers: readonly I[];
  lookupStatus: OcspStatusLookup<I>;
  /** nextUpdate - thisUpdate. Default 86400 (1 day). */
  validitySeconds?: number;
  /** Age after which a cached response is re-signed in the background. Default validitySeconds / 2. */
  refreshAfterSeconds?: number;
  /** After a failed background re-signing, wait this long before the next try. Default 30. */
  refreshRetrySeconds?: number;
  /** 'echo' (default): a request nonce is echoed in a freshly signed response; 'ignore': always cached. */
  nonces?: 'echo' | 'ignore';
  /** Concurrent vault signatures for cache fills and refreshes. Default 8. */
  maxConcurrentSignatures?: number;
  /** Cache fills waiting for a signature slot; beyond this: tryLater. Default 1000. */
  maxQueuedSignatures?: number;
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
  /** Cached responses kept (when full, one not served for longest is dropped: CLOCK, close to LRU). Default 100000. */
  maxCachedResponses?: number;
  /** CertIDs accepted in one request; more -> malformedRequest. Default 20. */
  maxCertIdsPerRequest?: number;
  /** Put the issuer's certificate in the response's certs field. Default false (not needed: the CA signs). */
  includeIssuerCertificate?: boolean;
  /**
   * Pre-signed responses shared with the other responder processes (ocsp/response-store.ts). A cache fill for a
   * one-CertID request (what clients send) looks there first and serves a response still before its refresh
   * point without a vault signature; a response this process signs is put there. A store that fails is logged
   * and signing goes on.
   */
  store?: OcspResponseStore;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** Clock in milliseconds, for tests. Default Date.now. */
  now?: () => number;
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
}

/** An unsigned error response. */
export interface OcspErrorAnswer {
  responseStatus: OcspErrorStatus;
  der: Uint8Array;
}

export type OcspAnswer = OcspSignedAnswer | OcspErrorAnswer;

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

/** The responder is at its signing limit. Answered as tryLater. */
export class OcspOverloadedError extends Error {
  constructor() {
    super('OCSP responder signing queue is full');
    this.name = 'OcspOverloadedError';
  }
}

interface IssuerRecord<I> {
  issuer: I;
  /** issuerNameHash per hash algorithm. */
  nameHashes: Record<OcspHashAlgorithm, Uint8Array>;
  responderKeyHash: Uint8Array;
}

interface Matched<I> {
  record: IssuerRecord<I>;
  certId: OcspCertId;
}

interface CacheEntry {
  answer: OcspSignedAnswer;
  serials: string[];
  refreshAt: number;
  expiresAt: number;
  retryAt: number;
  /** Served since it was (re)inserted: spared once by eviction (see store()). */
  used: boolean;
}

interface InFlight {
  promise: Promise<OcspSignedAnswer>;
  serials: string[];
}

/** Token bucket: `take()` is true at most `rate` times per second on average, with bursts up to `rate`. */
class RateLimit {
  private tokens: number;
  private last: number;

  constructor(private readonly rate: number, private readonly now: () => number) {
    this.tokens = rate;
    this.last = now();
  }

  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.rate, this.tokens + ((t - this.last) / 1000) * this.rate);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Runs at most `maxActive` tasks at once with at most `maxQueued` waiting; `run` returns undefined when full. */
class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly maxActive: number, private readonly maxQueued: number) {}

  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.active < this.maxActive) return this.start(task);
    if (this.queue.length >= this.maxQueued) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => void this.start(task).then(resolve, reject));
    });
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

const HASHES = Object.keys(OCSP_HASH_ALGORITHMS) as OcspHashAlgorithm[];
const NONCE_MAX_OCTETS = 32;

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`OcspResponder: ${name} must be a positive number, got ${v}`);
  return v;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export class OcspResponder<I extends OcspIssuer = OcspIssuer> {
  private readonly byKeyHash = new Map<string, IssuerRecord<I>[]>();
  private readonly lookupStatus: OcspStatusLookup<I>;
  private readonly validityMs: number;
  private readonly refreshAfterMs: number;
  private readonly retryMs: number;
  private readonly echoNonces: boolean;
  private readonly maxCached: number;
  private readonly maxCertIds: number;
  private readonly includeIssuerCertificate: boolean;
  private readonly logger: Pick<Logger, 'warn' | 'error'> | undefined;
  private readonly now: () => number;
  private readonly fills: Limiter;
  private readonly nonceSigns: Limiter;
  private readonly nonceRate: RateLimit;
  /**
   * Insertion order, oldest first. A hit only marks its entry `used`; eviction gives used entries a second
   * chance (CLOCK, an approximation of LRU). A hit never deletes and re-inserts its key: V8 leaves a deleted
   * Map entry in its hash chain until the table is rebuilt, so re-inserting one hot key on every request
   * made its lookups walk thousands of dead entries (10,000 cached responses: a hot certificate was answered
   * at about half the rate of 10,000 distinct ones; bench/pki/run.ts).
   */
  private readonly cache = new Map<string, CacheEntry>();
  private readonly keysBySerial = new Map<string, Set<string>>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly counters = { cacheHits: 0, cacheMisses: 0, signatures: 0, storeHits: 0, nonceResponses: 0, nonceFallbacks: 0 };
  private readonly shared: OcspResponseStore | undefined;

  constructor(options: OcspResponderOptions<I>) {
    if (options.issuers.length === 0) throw new RangeError('OcspResponder: no issuers');
    for (const issuer of options.issuers) {
      const { subject, publicKeyBits, spki } = certificateNameAndKey(issuer.certificate);
      if (!samePublicKey(spki, issuer.key.publicKeySpki)) {
        throw new Error(`OcspResponder: vault key "${issuer.key.name}" does not hold the public key of its issuer certificate`);
      }
      const nameHashes = {} as Record<OcspHashAlgorithm, Uint8Array>;
      const record: IssuerRecord<I> = { issuer, nameHashes, responderKeyHash: ocspResponderKeyHash(issuer.key.publicKeySpki) };
      for (const alg of HASHES) {
        nameHashes[alg] = new Uint8Array(createHash(alg).update(subject).digest());
        const keyHash = `${alg}:${createHash(alg).update(publicKeyBits).digest('hex')}`;
        const list = this.byKeyHash.get(keyHash) ?? [];
        list.push(record);
        this.byKeyHash.set(keyHash, list);
      }
    }
    this.lookupStatus = options.lookupStatus;
    this.validityMs = positive('validitySeconds', options.validitySeconds, 86_400) * 1000;
    this.refreshAfterMs = positive('refreshAfterSeconds', options.refreshAfterSeconds, this.validityMs / 2000) * 1000;
    if (this.refreshAfterMs >= this.validityMs) throw new RangeError('OcspResponder: refreshAfterSeconds must be below validitySeconds');
    this.retryMs = positive('refreshRetrySeconds', options.refreshRetrySeconds, 30) * 1000;
    this.echoNonces = (options.nonces ?? 'echo') === 'echo';
    this.maxCached = positive('maxCachedResponses', options.maxCachedResponses, 100_000);
    this.maxCertIds = positive('maxCertIdsPerRequest', options.maxCertIdsPerRequest, 20);
    this.includeIssuerCertificate = options.includeIssuerCertificate ?? false;
    this.logger = options.logger;
    this.shared = options.store;
    this.now = options.now ?? Date.now;
    this.fills = new Limiter(
      positive('maxConcurrentSignatures', options.maxConcurrentSignatures, 8),
      options.maxQueuedSignatures ?? 1000,
    );
    this.nonceSigns = new Limiter(
      positive('maxConcurrentNonceSignatures', options.maxConcurrentNonceSignatures, 4),
      options.maxQueuedNonceSignatures ?? 32,
    );
    this.nonceRate = new RateLimit(positive('nonceSignaturesPerSecond', options.nonceSignaturesPerSecond, 50), this.now);
  }

  /** Answers a DER OCSPRequest. Never throws: every failure becomes an OCSP error response. */
  async respond(requestDer: Uint8Array): Promise<OcspAnswer> {
    let request: OcspRequestInfo;
    try {
      request = decodeOcspRequest(requestDer);
    } catch (err) {
      return countOcspAnswer(err instanceof OcspMalformedRequestError ? errorAnswer('malformedRequest') : this.failure(err), 'miss');
    }
    return this.answer(request);
  }

  /** Answers a decoded request (see respond). */
  async answer(request: OcspRequestInfo): Promise<OcspAnswer> {
    const { answer, hit } = await this.answerOnce(request);
    return countOcspAnswer(answer, hit ? 'hit' : 'miss');
  }

  /** `answer` before it is counted; hit: served from this process's cache. */
  private async answerOnce(request: OcspRequestInfo): Promise<{ answer: OcspAnswer; hit: boolean }> {
    const miss = (answer: OcspAnswer) => ({ answer, hit: false });
    try {
      if (request.certIds.length > this.maxCertIds) return miss(errorAnswer('malformedRequest'));
      const matched: Matched<I>[] = [];
      for (const certId of request.certIds) {
        const record = this.findIssuer(certId);
        if (!record || (matched.length > 0 && record !== matched[0]!.record)) return miss(errorAnswer('unauthorized'));
        matched.push({ record, certId });
      }
      if (request.nonce && this.echoNonces) {
        const value = unwrapOctetString(request.nonce) ?? request.nonce;
        if (value.length === 0 || value.length > NONCE_MAX_OCTETS) return miss(errorAnswer('malformedRequest'));
        const nonce = request.nonce.slice();
        const fresh = this.nonceRate.take() ? this.nonceSigns.run(async () => (await this.sign(matched, nonce)).answer) : undefined;
        if (fresh) {
          this.counters.nonceResponses++;
          return miss(await fresh);
        }
        this.counters.nonceFallbacks++;
      }
      return await this.cached(matched);
    } catch (err) {
      return miss(this.failure(err));
    }
  }

  /**
   * Forgets cached and in-flight responses for a serial (any form normalizeSerialHex accepts), or all of them.
   * Call it when a certificate's status changes.
   */
  invalidate(serialHex?: string): void {
    if (serialHex === undefined) {
      this.cache.clear();
      this.keysBySerial.clear();
      this.inFlight.clear();
      return;
    }
    const serial = serialHex.startsWith('-') ? serialHex.toLowerCase() : normalizeSerialHex(serialHex);
    for (const key of this.keysBySerial.get(serial) ?? []) this.forget(key);
    for (const [key, flight] of this.inFlight) if (flight.serials.includes(serial)) this.inFlight.delete(key);
  }

  stats(): OcspResponderStats {
    return { cachedResponses: this.cache.size, ...this.counters };
  }

  private findIssuer(certId: OcspCertId): IssuerRecord<I> | undefined {
    const alg = certId.hashAlgorithm;
    if (!alg) return undefined;
    const candidates = this.byKeyHash.get(`${alg}:${hex(certId.issuerKeyHash)}`);
    return candidates?.find((r) => bytesEqual(r.nameHashes[alg], certId.issuerNameHash));
  }

  private async cached(matched: Matched<I>[]): Promise<{ answer: OcspSignedAnswer; hit: boolean }> {
    let key = '';
    for (const m of matched) key += Buffer.from(m.certId.der.buffer, m.certId.der.byteOffset, m.certId.der.byteLength).toString('latin1');
    const now = this.now();
    const entry = this.cache.get(key);
    if (entry && now < entry.expiresAt) {
      this.counters.cacheHits++;
      entry.used = true;
      if (now >= entry.refreshAt && now >= entry.retryAt && !this.inFlight.has(key)) {
        // Set before the attempt, not when it fails: requests arriving while a failure is still on its way
        // must not start more attempts. A successful refresh replaces the entry.
        entry.retryAt = now + this.retryMs;
        this.fill(key, matched)?.catch((err: unknown) => {
          this.logger?.warn({ err }, 'OCSP background re-signing failed; serving the cached response');
        });
      }
      return { answer: entry.answer, hit: true };
    }
    this.counters.cacheMisses++;
    const flight = this.inFlight.get(key)?.promise ?? this.fill(key, matched);
    if (!flight) throw new OcspOverloadedError();
    return { answer: await flight, hit: false };
  }

  /** Starts one signing for `key` (shared by everyone who asks meanwhile); undefined when the queue is full. */
  private fill(key: string, matched: Matched<I>[]): Promise<OcspSignedAnswer> | undefined {
    const run = this.fills.run(() => this.fillAnswer(matched));
    if (!run) return undefined;
    const serials = matched.map((m) => m.certId.serialHex);
    const flight: InFlight = {
      serials,
      promise: run.then(
        (answer) => {
          // Skip storing when invalidate() ran meanwhile: the answer may predate a revocation.
          if (this.inFlight.get(key) === flight) {
            this.inFlight.delete(key);
            this.store(key, serials, answer);
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

  private store(key: string, serials: string[], answer: OcspSignedAnswer): void {
    this.forget(key);
    while (this.cache.size >= this.maxCached) {
      const oldest = this.cache.entries().next().value;
      if (oldest === undefined) break;
      const [oldestKey, entry] = oldest;
      if (entry.used) {
        // Served since it was queued: second chance, to the back of the queue (once per pass of the queue).
        entry.used = false;
        this.cache.delete(oldestKey);
        this.cache.set(oldestKey, entry);
        continue;
      }
      this.forget(oldestKey);
    }
    const thisUpdate = answer.thisUpdate.getTime();
    this.cache.set(key, {
      answer,
      serials,
      refreshAt: thisUpdate + this.refreshAfterMs,
      expiresAt: answer.nextUpdate.getTime(),
      retryAt: 0,
      used: false,
    });
    for (const serial of serials) {
      let keys = this.keysBySerial.get(serial);
      if (!keys) this.keysBySerial.set(serial, (keys = new Set()));
      keys.add(key);
    }
  }

  private forget(key: string): void {
    const entry = this.cache.get(key);
    if (!entry) return;
    this.cache.delete(key);
    for (const serial of entry.serials) {
      const keys = this.keysBySerial.get(serial);
      keys?.delete(key);
      if (keys?.size === 0) this.keysBySerial.delete(serial);
    }
  }

  /** A cache fill: the shared store's response while it is before its refresh point, else a new one (stored). */
  private async fillAnswer(matched: Matched<I>[]): Promise<OcspSignedAnswer> {
    const shared = matched.length === 1 ? this.shared : undefined;
    if (!shared) return (await this.sign(matched, undefined)).answer;
    const certId = matched[0]!.certId;
    const certIdHex = hex(certId.der);
    try {
      const stored = await shared.get(certIdHex);
      const now = this.now();
      if (stored && now < stored.thisUpdate.getTime() + this.refreshAfterMs && now < stored.nextUpdate.getTime()) {
        this.counters.storeHits++;
        return signedAnswer(stored, false);
      }
    } catch (err) {
      this.logger?.warn({ err }, 'OCSP response store could not be read; signing a response');
    }
    const { answer, statuses } = await this.sign(matched, undefined);
    try {
      await shared.put(certIdHex, certId.serialHex, answer, statuses[0]!.status === 'good');
    } catch (err) {
      this.logger?.warn({ err }, 'OCSP response could not be stored for the other responder processes');
    }
    return answer;
  }

  /** Looks up the statuses and signs one response: one vault signature. */
  private async sign(matched: Matched<I>[], nonce: Uint8Array | undefined): Promise<{ answer: OcspSignedAnswer; statuses: OcspCertStatus[] }> {
    const record = matched[0]!.record;
    const statuses = await Promise.all(matched.map((m) => this.lookupStatus(record.issuer, m.certId.serialHex)));
    const now = Math.floor(this.now() / 1000) * 1000; // GeneralizedTime carries whole seconds
    const thisUpdate = new Date(now);
    const nextUpdate = new Date(now + this.validityMs);
    this.counters.signatures++;
    const der = await buildOcspResponse({
      signer: record.issuer.key,
      responderKeyHash: record.responderKeyHash,
      producedAt: thisUpdate,
      responses: matched.map((m, i) => ({ certId: m.certId.der, certStatus: statuses[i]!, thisUpdate, nextUpdate })),
      nonce,
      certs: this.includeIssuerCertificate ? [record.issuer.certificate] : undefined,
    });
    const answer = signedAnswer({ der, producedAt: thisUpdate, thisUpdate, nextUpdate }, nonce !== undefined);
    STATUS_LABELS.set(answer, statusLabel(statuses.map((s) => s.status)));
    return { answer, statuses };
  }

  private failure(err: unknown): OcspErrorAnswer {
    if (err instanceof OcspOverloadedError || err instanceof VaultUnavailableError) {
      this.logger?.warn({ err }, 'OCSP responder answered tryLater');
      return errorAnswer('tryLater');
    }
    this.logger?.error({ err }, 'OCSP responder failed');
    return errorAnswer('internalError');
  }
}

function signedAnswer(response: StoredOcspResponse, nonceEchoed: boolean): OcspSignedAnswer {
  return { responseStatus: 'successful', ...response, nonceEchoed, sha1Hex: createHash('sha1').update(response.der).digest('hex') };
}

const ERROR_ANSWERS = new Map<OcspErrorStatus, OcspErrorAnswer>();

/** The (shared, never mutated) answer for an OCSP error status. */
export function errorAnswer(status: OcspErrorStatus): OcspErrorAnswer {
  let answer = ERROR_ANSWERS.get(status);
  if (!answer) ERROR_ANSWERS.set(status, (answer = { responseStatus: status, der: ocspErrorResponse(status) }));
  return answer;
}

/**
 * The mss_ocsp_responses_total status of each signed answer this process made or read, kept with the answer (so a
 * cache hit costs a map lookup). One CertID (what clients send): its status. Several: their status when they all
 * share one, else 'multiple' (a response is one answer, counted once; mixed statuses in one request are rare).
 */
const STATUS_LABELS = new WeakMap<OcspSignedAnswer, string>();

function statusLabel(statuses: readonly string[]): string {
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
function statusLabelOfDer(der: Uint8Array): string {
  try {
    const [, bytesTag] = readChildren(der, readSingle(der, TAG.SEQUENCE));
    const responseBytes = readTlv(der, bytesTag!.contentStart, bytesTag!.end);
    const octets = readChildren(der, responseBytes)[1]!;
    const basic = der.subarray(octets.contentStart, octets.end);
    const tbs = readChildren(basic, readSingle(basic, TAG.SEQUENCE))[0]!;
    const responses = readChildren(basic, tbs).find((t) => t.tag === TAG.SEQUENCE)!;
    const statuses = readChildren(basic, responses).map((single) => CERT_STATUS_TAGS.get(readChildren(basic, single)[1]!.tag) ?? 'unparsed');
    return statusLabel(statuses);
  } catch {
    return 'unparsed'; // never expected: the service signed these bytes
  }
}

/**
 * Counts an answer in mss_ocsp_responses_total and returns it. For whoever answers on the responder's behalf too
 * (ocsp/role.ts answers unauthorized while no CA exists).
 */
export function countOcspAnswer<A extends OcspAnswer>(answer: A, cache: 'hit' | 'miss'): A {
  let status: string;
  if (answer.responseStatus === 'successful') {
    const signed = answer as OcspSignedAnswer;
    status = STATUS_LABELS.get(signed) ?? statusLabelOfDer(signed.der);
    STATUS_LABELS.set(signed, status);
  } else {
    status = answer.responseStatus;
  }
  ocspResponses.inc({ status, cache });
  return answer;
}
