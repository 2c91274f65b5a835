/**
 * The web verdict's words for a signature's stapled OCSP answer (web/app/verdict-view.js, plain browser JavaScript
 * that needs no DOM for its words): the status, who answered (the responder's CN), and when the answer does not check.
 */
import { expect } from 'chai';

interface VerdictWords {
  stapledOcspWords(ocsp: unknown): string | undefined;
}
// The module is JavaScript without types: imported by URL.
const words = (): Promise<VerdictWords> => import(new URL('../../web/app/verdict-view.js', import.meta.url).href);

const answer = { status: 'good', produced_at: '2026-11-21T18:50:42Z', this_update: '2026-11-21T18:50:42Z', next_update: null, revoked_at: null, revocation_reason: null, responder: 'CN=Media Signing Service OCSP Responder,O=Media Signing Service', verified: true, codes: ['signingCredential.ocsp.notRevoked'] };

describe('web verdict: the stapled OCSP answer in words', () => {
  it('names the status and the responder by its CN', async () => {
    expect((await words()).stapledOcspWords(answer)).to.equal('Revocation checked at signing: good, by Media Signing Service OCSP Responder.');
  });

  it('says since when and why a certificate was revoked, and when the answer does not check', async () => {
    const { stapledOcspWords } = await words();
    const revoked = stapledOcspWords({ ...answer, status: 'revoked', revoked_at: '2026-11-20T10:00:00Z', revocation_reason: 'keyCompromise', responder: 'CN=Outside OCSP,O=Outside CA', verified: false });
    expect(revoked).to.match(/^Revocation checked at signing: revoked since .+ \(keyCompromise\), by Outside OCSP; the answer does not check against the file’s certificate chain\.$/);
  });

  it('says nothing for a signature without one', async () => {
    expect((await words()).stapledOcspWords(null)).to.equal(undefined);
  });
});
