/**
 * What a front process (ocsp/front.ts) answers with: its own copy of the signed responses the role's process
 * gave it, one per exact CertID set as in ocsp/memory-cache.ts, and the role's process for everything else.
 *
 *   undecodable request          malformedRequest, here (garbage never crosses to the role's process)
 *   request with a nonce         asked of the role's process (the nonce budget is kept there), except while its
 *                                last answer said the nonce rate is spent and a fresh copy is here: then the copy,
 *                                without the nonce, as the role's process answers then (a nonce of a length
 *                                RFC 8954 refuses is refused here as there)
 *   no nonce, fresh copy here    the copy (a hit)
 *   otherwise                    asked (concurrent asks for one CertID set share one); a signed answer without
 *                                a nonce is kept until it is `freshUntil` (the role's refresh point, so a
 *                                request after it reaches the role's cache and starts its re-signing)
 *
 * Invalidation comes from the role's process, in order with its answers on one channel: an answer asked before
 * an invalidation that arrives after it is returned but not kept (it may predate a revocation).
 */
import type { Logger } from 'pino';
import { decodeOcspRequest, type OcspRequestInfo } from '../shared/pki/ocsp-request.js';
import { failureAnswer } from './answers.js';
import { certIdsKey, invalidationSerial } from './memory-cache.js';
import { checkNonceLength } from './nonce-source.js';
import { SerialIndex } from './serial-index.js';
import type { OcspAnswerer } from './server.js';
import type { OcspReply, OcspSignedAnswer } from './source.js';

/**
 * The role's process's answer to a front: the reply, until when a signed answer may be served from a copy, and when
 * a nonce can next be signed within the nonce rate (OcspResponder.nextNonceSignatureAt).
 */
export interface AskedReply {
  reply: OcspReply;
  freshUntil: number;
  nextNonceSignatureAt: number;
}

interface Copy {
  answer: OcspSignedAnswer;
  serials: string[];
  freshUntil: number;
}

export class FrontCache implements OcspAnswerer {
  /** Insertion order, oldest first: past `maxEntries` the oldest copy is dropped (it is asked for again). */
  private readonly copies = new Map<string, Copy>();
  private readonly serials = new SerialIndex();
  private readonly asking = new Map<string, Promise<AskedReply>>();
  /** Invalidations received so far. */
  private epoch = 0;
  /** From the role's last answer: before this, a request with a nonce would be answered without it there. */
  private nextNonceSignatureAt = 0;

  constructor(
    private readonly ask: (requestDer: Uint8Array) => Promise<AskedReply>,
    private readonly options: { maxEntries: number; now?: () => number; logger?: Pick<Logger, 'warn' | 'error'> },
  ) {}

  get size(): number {
    return this.copies.size;
  }

  async serve(requestDer: Uint8Array): Promise<OcspReply> {
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
      // A copy means the role accepted these CertIDs' issuer; what it checks next is the nonce's length, then its rate.
      if (!fresh || now >= this.nextNonceSignatureAt) return (await this.asked(requestDer)).reply;
      try {
        checkNonceLength(request.nonce);
      } catch (err) {
        return { answer: failureAnswer(err, this.options.logger), hit: false };
      }
      return { answer: fresh.answer, hit: true };
    }
    if (fresh) return { answer: fresh.answer, hit: true };

    const epoch = this.epoch;
    let asked = this.asking.get(key);
    if (!asked) {
      asked = this.asked(requestDer);
      this.asking.set(key, asked);
      const mine = asked;
      const done = () => {
        if (this.asking.get(key) === mine) this.asking.delete(key);
      };
      mine.then(({ reply, freshUntil }) => {
        done();
        const answer = reply.answer;
        if (epoch === this.epoch && answer.responseStatus === 'successful' && !answer.nonceEchoed && freshUntil > (this.options.now ?? Date.now)()) {
          this.put(key, request.certIds.map((c) => c.serialHex), answer, freshUntil);
        }
      }, done);
    }
    return (await asked).reply;
  }

  /** Asks the role's process, noting when it can next sign a nonce. */
  private async asked(requestDer: Uint8Array): Promise<AskedReply> {
    const asked = await this.ask(requestDer);
    this.nextNonceSignatureAt = asked.nextNonceSignatureAt;
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
