/**
 * The shared store between the cache and the signer (Boulder's redisSource): responder copies on one database
 * share pre-signed responses (ocsp/response-store.ts), so the vault signs once per certificate and validity
 * window for all copies together. A one-CertID query (what clients send) is answered from the store while its
 * response is before the refresh point, without a signature; otherwise the next source signs and the response
 * is put in the store for the others. A store that cannot be read or written is logged and the copy signs for
 * itself. Requests with several CertIDs go straight to the next source. A stored response signed by another key
 * than the one the issuer signs with now (the CA's, before its delegated responder was issued, or an earlier
 * responder's) is signed again: clients that staple want the current responder's.
 */
import type { Logger } from 'pino';
import { bytesEqual, toHex } from '../shared/pki/der.js';
import { ocspAnswerSigner } from '../shared/pki/ocsp-answer.js';
import { certStatusOfDer, signedAnswer } from './answers.js';
import type { MatchedIssuer, OcspIssuer, OcspQuery, OcspResponseStore, OcspServed, OcspSource } from './source.js';

/** Signed by the key the issuer signs with now, embedding its current responder certificate when it has one. */
function sameResponder(der: Uint8Array, issuer: MatchedIssuer<OcspIssuer>): boolean {
  const signer = ocspAnswerSigner(der);
  if (!signer?.keyHash || !bytesEqual(signer.keyHash, issuer.responderKeyHash)) return false;
  const current = issuer.issuer.responder?.certificate;
  return current ? signer.certificate !== undefined && bytesEqual(signer.certificate, current) : true;
}

export class StoreSource<I extends OcspIssuer> implements OcspSource<I> {
  /** Queries answered from the store, without a signature. */
  storeHits = 0;

  constructor(
    private readonly store: OcspResponseStore,
    private readonly options: { refreshAfterMs: number; now: () => number; logger?: Pick<Logger, 'warn'> },
    private readonly next: OcspSource<I>,
  ) {}

  async answer(query: OcspQuery<I>): Promise<OcspServed> {
    if (query.certIds.length !== 1) return this.next.answer(query);
    const certId = query.certIds[0]!;
    const certIdHex = toHex(certId.der);
    try {
      const stored = await this.store.get(certIdHex);
      const now = this.options.now();
      const fresh = stored && now < stored.thisUpdate.getTime() + this.options.refreshAfterMs && now < stored.nextUpdate.getTime();
      if (fresh && sameResponder(stored.der, query.issuer)) {
        this.storeHits++;
        return { answer: signedAnswer(stored, false, certStatusOfDer(stored.der)), hit: false };
      }
    } catch (err) {
      this.options.logger?.warn({ err }, 'OCSP response store could not be read; signing a response');
    }
    const served = await this.next.answer(query);
    try {
      await this.store.put(certIdHex, certId.serialHex, served.answer, served.answer.certStatus === 'good');
    } catch (err) {
      this.options.logger?.warn({ err }, 'OCSP response could not be stored for the other responder processes');
    }
    return served;
  }
}
