/**
 * A front's copies over a real responder (asked in-process here; over IPC in the role): nonces within the rate reach
 * the responder and come back echoed; once the rate is spent, the front answers from its copy without the nonce, as
 * the responder would, without asking; a nonce of a refused length is still refused.
 */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { FrontCache, type AskedReply } from '../../ocsp/front-cache.js';
import { OcspResponder } from '../../ocsp/responder.js';
import { certIdFor, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { OCSPResponseStatus, StatusTable, issuersOf, parseOcspResponse, serialOf } from './support.js';

const NONCE_OID = '1.3.6.1.5.5.7.48.1.2';

const echoed = (der: Uint8Array) => (parseOcspResponse(der).basic!.tbsResponseData.responseExtensions ?? []).some((e) => e.extnID === NONCE_OID);

describe('OCSP front cache over a real responder', function () {
  let chain: OpensslChain;
  before(async function () {
    chain = await makeOpensslChain();
  });
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  /** A front over a responder signing `nonceSignaturesPerSecond` nonces, on a clock the test moves; counts its asks. */
  function setup(nonceSignaturesPerSecond: number) {
    const clock = { now: Date.now() };
    const now = () => clock.now;
    const responder = new OcspResponder({ issuers: [issuersOf(chain).subCa], lookupStatus: new StatusTable().lookup, nonceSignaturesPerSecond, now });
    const counted = { asks: 0 };
    const ask = async (der: Uint8Array): Promise<AskedReply> => {
      counted.asks++;
      const reply = await responder.serve(der);
      const answer = reply.answer;
      const freshUntil = answer.responseStatus === 'successful' ? answer.thisUpdate.getTime() + responder.refreshAfterMs : 0;
      return { reply, freshUntil, nonceBudget: responder.nonceBudget() };
    };
    const front = new FrontCache(ask, { maxEntries: 10, now });
    const certId = certIdFor(chain.der.subCa, serialOf(chain.pem.leaf));
    let n = 0;
    const withNonce = (nonce = new Uint8Array(16).fill(++n)) => front.serve(encodeOcspRequest([certId], { nonce }));
    return { clock, counted, front, certId, withNonce };
  }

  it('asks for nonces within the rate, then answers them from its copy without the nonce until the rate allows one', async function () {
    const { clock, counted, front, certId, withNonce } = setup(2);
    const plain = await front.serve(encodeOcspRequest([certId]));
    expect(plain.hit).to.equal(false);
    expect((await front.serve(encodeOcspRequest([certId]))).hit).to.equal(true);
    expect(counted.asks).to.equal(1);

    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await withNonce());
    // Two tokens: two echoed, after which the front's copy of the rate has none; until it refills, the copy.
    expect(answers.map((a) => echoed(a.answer.der))).to.deep.equal([true, true, false, false, false, false]);
    expect(counted.asks).to.equal(1 + 2);
    for (const a of answers.slice(2)) expect(Buffer.from(a.answer.der).equals(Buffer.from(plain.answer.der))).to.equal(true);
    // A nonce RFC 8954 refuses is refused here too, rate spent or not.
    const tooLong = await withNonce(new Uint8Array(33));
    expect(parseOcspResponse(tooLong.answer.der).status).to.equal(OCSPResponseStatus.malformedRequest);

    // Half a second later the rate has a token again: the next nonce is asked for and echoed.
    clock.now += 600;
    expect(echoed((await withNonce()).answer.der)).to.equal(true);
    expect(counted.asks).to.equal(1 + 2 + 1);
  });

  it('keeps the answer without a nonce past the rate as its copy when a client only sends nonces, and asks a burst within the rate whole', async function () {
    const { clock, counted, front, withNonce } = setup(3);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(echoed((await withNonce()).answer.der));
    // Three tokens; the fourth is answered by the responder from its cache, and that answer is the copy from then on.
    expect(answers).to.deep.equal([true, true, true, false, false, false]);
    expect(counted.asks).to.equal(4);
    expect(front.size).to.equal(1);

    // The rate full again: three at once are all asked and signed; the fourth is the copy.
    clock.now += 10_000;
    const burst = await Promise.all([withNonce(), withNonce(), withNonce()]);
    expect(burst.map((a) => echoed(a.answer.der))).to.deep.equal([true, true, true]);
    expect(echoed((await withNonce()).answer.der)).to.equal(false);
    expect(counted.asks).to.equal(4 + 3);
  });

  it('answers the same request bytes again at once from its copy, and asks again after a revocation or past the refresh point', async function () {
    const { clock, counted, front, certId } = setup(2);
    const request = encodeOcspRequest([certId]);
    const first = await front.serve(request);
    expect(first.hit).to.equal(false);
    const again = front.serve(Buffer.from(request));
    expect(again).not.to.be.instanceOf(Promise);
    expect((again as Awaited<typeof again>).hit).to.equal(true);
    expect(counted.asks).to.equal(1);

    front.invalidate(serialOf(chain.pem.leaf));
    await front.serve(request);
    expect(counted.asks).to.equal(2);
    expect((await front.serve(request)).hit).to.equal(true);

    clock.now += 13 * 3600_000; // past the role's refresh point (half of a day's validity)
    await front.serve(request);
    expect(counted.asks).to.equal(3);
  });
});
