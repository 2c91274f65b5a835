/**
 * What a front process (ocsp/front.ts) answers with: its own copy of the signed responses the role's process
 * gave it, one per exact CertID set as in ocsp/memory-cache.ts, and the role's process for everything else.
 *
 *   undecodable request          malformedRequest, here (garbage never crosses to the role's process)
 *   request with a nonce         asked of the role's process (the nonce budget is kept there), except when a
 *                                fresh copy is here and the nonce rate has no token: then the copy, without the
 *                                nonce, as the role's process answers then (a nonce of a length RFC 8954 refuses
 *                                is refused here as there). The front follows the rate in a copy of the role's
 *                                token bucket, taken from each answer and refilled and spent here as there, so
 *                                past the rate a flood of nonces costs no trip to the role.
 *   no nonce, fresh copy here    the copy (a hit), at once (not a promise); a request whose bytes were seen before
 *                                is looked up by them, without decoding it again
 *   otherwise                    asked (concurrent asks for one CertID set share one); a signed answer without
 *                                a nonce (a nonce request's answer past the budget too) is kept until it is
 *                                `freshUntil` (the role's refresh point, so a request after it reaches the role's
 *                                cache and starts its re-signing)
 *
 * Invalidation comes from the role's process, in order with its answers on one channel: an answer asked before
 * an invalidation that arrives after it is returned but not kept (it may predate a revocation).
 */
import type { Logger } from 'pino';
import { decodeOcspRequest, type OcspRequestInfo } from '../shared/pki/ocsp-request.js';
import { failureAnswer } from './answers.js';
import { RateLimit, type RateSnapshot } from './limits.js';
import { certIdsKey, invalidationSerial } from './memory-cache.js';
import { checkNonceLength } from './nonce-source.js';
import { SerialIndex } from './serial-index.js';
import type { OcspEdgeAnswerer } from './server.js';
import type { OcspReply, OcspSignedAnswer } from './source.js';

/**
 * The role's process's answer to a front: the reply, until when a signed answer may be served from a copy, and the
 * nonce rate's token bucket after it (OcspResponder.nonceBudget).
 */
export interface AskedReply {
  reply: OcspReply;
  freshUntil: number;
  nonceBudget: RateSnapshot;
}

interface Copy {
  answer: OcspSignedAnswer;
  serials: string[];
  freshUntil: number;
}

export class FrontCache implements OcspEdgeAnswerer {
  /** Insertion order, oldest first: past `maxEntries` the oldest copy is dropped (it is asked for again). */
  private readonly copies = new Map<string, Copy>();
  private readonly serials = new SerialIndex();
  private readonly asking = new Map<string, Promise<AskedReply>>();
  /**
   * The CertID set of each request without a nonce seen (its DER as latin1), so that a request sent again, byte for
   * byte as clients do, is answered without decoding it. At most `maxEntries`, then started again.
   */
  private readonly requestKeys = new Map<string, string>();
  /** Invalidations received so far. */
  private epoch = 0;
  /**
   * The role's nonce rate as its last answer left it, refilled and spent here as there (other fronts' nonces are not
   * seen here until the next answer: then this front asks, and the role answers from its cache). Unknown before the
   * first answer.
   */
  private nonceRate: RateLimit | undefined;

  constructor(
    private readonly ask: (requestDer: Uint8Array) => Promise<AskedReply>,
    private readonly options: { maxEntries: number; now?: () => number; logger?: Pick<Logger, 'warn' | 'error'> },
  ) {}

  get size(): number {
    return this.copies.size;
  }

  /** A fresh copy's answer at once; anything asked of the role's process, when it answers. Never rejects. */
  serve(requestDer: Uint8Array): OcspReply | Promise<OcspReply> {
    const bytes = Buffer.from(requestDer.buffer, requestDer.byteOffset, requestDer.byteLength).toString('latin1');
    const known = this.requestKeys.get(bytes);
    if (known !== undefined) {
      const copy = this.copies.get(known);
      if (copy && (this.options.now ?? Date.now)() < copy.freshUntil) return { answer: copy.answer, hit: true };
    }
    let request: OcspRequestInfo;
    try {
      request = decodeOcspRequest(requestDer);
    } catch (err) {
      return { answer: failureAnswer(err, this.options.logger), hit: false };
    }
    const key = certIdsKey(request.certIds);
    const now = (this.options.now ?? Date.now)();
    const copy = this.copies.get(key);
    const fresh = copy && now < copy.freshUntil ? copy : undefined;
    if (request.nonce) {
      // Taken here as the role will take it; a copy means the role accepted these CertIDs' issuer, and what it
      // checks next is the nonce's length, then its rate.
      const signable = this.nonceRate?.take() ?? true;
      if (signable || !fresh) return this.kept(key, request, this.asked(requestDer)).then((asked) => asked.reply);
      try {
        checkNonceLength(request.nonce);
      } catch (err) {
        return { answer: failureAnswer(err, this.options.logger), hit: false };
      }
      return { answer: fresh.answer, hit: true };
    }
    // The same bytes ask the same again: next time they are looked up as they are, not decoded.
    if (this.requestKeys.size >= this.options.maxEntries) this.requestKeys.clear();
    this.requestKeys.set(bytes, key);
    if (fresh) return { answer: fresh.answer, hit: true };

    let asked = this.asking.get(key);
    if (!asked) {
      asked = this.kept(key, request, this.asked(requestDer));
      this.asking.set(key, asked);
      const mine = asked;
      const done = () => {
        if (this.asking.get(key) === mine) this.asking.delete(key);
      };
      mine.then(done, done);
    }
    return asked.then((a) => a.reply);
  }

  /** Asks the role's process, taking up its nonce rate as it stands after the answer. */
  private async asked(requestDer: Uint8Array): Promise<AskedReply> {
    const asked = await this.ask(requestDer);
    this.nonceRate = RateLimit.resumed(asked.nonceBudget, this.options.now ?? Date.now);
    return asked;
  }

  /** `asking`, keeping its answer as the copy for the request's CertIDs when it is a signed one without a nonce. */
  private async kept(key: string, request: OcspRequestInfo, asking: Promise<AskedReply>): Promise<AskedReply> {
    const epoch = this.epoch;
    const asked = await asking;
    const { answer } = asked.reply;
    if (epoch === this.epoch && answer.responseStatus === 'successful' && !answer.nonceEchoed && asked.freshUntil > (this.options.now ?? Date.now)()) {
      this.put(key, request.certIds.map((c) => c.serialHex), answer, asked.freshUntil);
    }
    return asked;
  }

  /** Drops the copies for a serial (any form normalizeSerialHex accepts), or all of them. */
  invalidate(serialHex?: string): void {
    this.epoch++;
    this.asking.clear();
    if (serialHex === undefined) {
      this.copies.clear();
      this.serials.clear();
      return;
    }
    for (const key of this.serials.keysOf(invalidationSerial(serialHex))) this.forget(key);
  }

  private put(key: string, serials: string[], answer: OcspSignedAnswer, freshUntil: number): void {
    this.forget(key);
    while (this.copies.size >= this.options.maxEntries) {
      const oldest = this.copies.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
    this.copies.set(key, { answer, serials, freshUntil });
    this.serials.add(key, serials);
  }

  private forget(key: string): void {
    const copy = this.copies.get(key);
    if (!copy) return;
    this.copies.delete(key);
    this.serials.remove(key, copy.serials);
  }
}
