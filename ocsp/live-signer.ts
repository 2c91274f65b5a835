/**
 * The last source (Boulder's live source): looks the statuses up and signs one response with the issuing CA's
 * delegated responder's vault key when it has one (its certificate embedded), else the CA's own key, ES384,
 * responderID byKey (spec rule 3); thisUpdate = producedAt = now (whole seconds),
 * nextUpdate = thisUpdate + `validitySeconds`. One vault signature per call.
 */
import { buildOcspResponse, type OcspCertStatus } from '../shared/pki/ocsp-response.js';
import { certStatusLabel, signedAnswer } from './answers.js';
import { positiveOption, type OcspIssuer, type OcspQuery, type OcspServed, type OcspSignedAnswer, type OcspSource, type OcspStatusLookup } from './source.js';

export interface LiveSignerOptions<I extends OcspIssuer> {
  lookupStatus: OcspStatusLookup<I>;
  /** nextUpdate - thisUpdate. Default 86400 (1 day). */
  validitySeconds?: number;
  /** Put the issuer's certificate in the response's certs field. Default false (not needed: the CA signs). */
  includeIssuerCertificate?: boolean;
  /** Clock in milliseconds, for tests. Default Date.now. */
  now?: () => number;
}

export class LiveSigner<I extends OcspIssuer> implements OcspSource<I> {
  readonly validityMs: number;
  private readonly lookupStatus: OcspStatusLookup<I>;
  private readonly includeIssuerCertificate: boolean;
  private readonly now: () => number;
  /** Vault signatures requested (cache fills, refreshes and nonce responses). */
  signatures = 0;

  constructor(options: LiveSignerOptions<I>) {
    this.lookupStatus = options.lookupStatus;
    this.validityMs = positiveOption('validitySeconds', options.validitySeconds, 86_400) * 1000;
    this.includeIssuerCertificate = options.includeIssuerCertificate ?? false;
    this.now = options.now ?? Date.now;
  }

  /** A response without a nonce. (A query's nonce is echoed only through sign(), by the nonce source.) */
  async answer(query: OcspQuery<I>): Promise<OcspServed> {
    const statuses = await this.lookup(query);
    return { answer: await this.sign(query, undefined, statuses), hit: false, statuses };
  }

  /** A response echoing `nonce` if given, with `statuses` when the caller holds them current, else looked up. */
  async sign(query: OcspQuery<I>, nonce: Uint8Array | undefined, statuses?: readonly OcspCertStatus[]): Promise<OcspSignedAnswer> {
    statuses ??= await this.lookup(query);
    const { issuer, responderKeyHash } = query.issuer;
    const now = Math.floor(this.now() / 1000) * 1000; // GeneralizedTime carries whole seconds
    const thisUpdate = new Date(now);
    const nextUpdate = new Date(now + this.validityMs);
    this.signatures++;
    const certs = issuer.responder ? [issuer.responder.certificate] : this.includeIssuerCertificate ? [issuer.certificate] : undefined;
    const der = await buildOcspResponse({
      signer: issuer.responder?.key ?? issuer.key,
      responderKeyHash,
      producedAt: thisUpdate,
      responses: query.certIds.map((certId, i) => ({ certId: certId.der, certStatus: statuses[i]!, thisUpdate, nextUpdate })),
      nonce,
      certs,
    });
    return signedAnswer({ der, producedAt: thisUpdate, thisUpdate, nextUpdate }, nonce !== undefined, certStatusLabel(statuses.map((s) => s.status)));
  }

  private lookup(query: OcspQuery<I>): Promise<OcspCertStatus[]> {
    return Promise.all(query.certIds.map((certId) => this.lookupStatus(query.issuer.issuer, certId.serialHex)));
  }
}
