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

describe('OCSP front cache over a real responder', function () {
  let chain: OpensslChain;
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  it('asks for nonces within the rate, then answers them from its copy without the nonce until the rate allows one', async function () {
    chain = await makeOpensslChain();
    let clock = Date.now();
    const now = () => clock;
    const responder = new OcspResponder({ issuers: [issuersOf(chain).subCa], lookupStatus: new StatusTable().lookup, nonceSignaturesPerSecond: 2, now });
    let asks = 0;
    const ask = async (der: Uint8Array): Promise<AskedReply> => {
      asks++;
      const reply = await responder.serve(der);
      const answer = reply.answer;
      const freshUntil = answer.responseStatus === 'successful' ? answer.thisUpdate.getTime() + responder.refreshAfterMs : 0;
      return { reply, freshUntil, nextNonceSignatureAt: responder.nextNonceSignatureAt() };
    };
    const front = new FrontCache(ask, { maxEntries: 10, now });
    const certId = certIdFor(chain.der.subCa, serialOf(chain.pem.leaf));
    const echoed = (der: Uint8Array) => (parseOcspResponse(der).basic!.tbsResponseData.responseExtensions ?? []).some((e) => e.extnID === NONCE_OID);

    const plain = await front.serve(encodeOcspRequest([certId]));
    expect(plain.hit).to.equal(false);
    expect((await front.serve(encodeOcspRequest([certId]))).hit).to.equal(true);
    expect(asks).to.equal(1);

    const withNonce = (n: number) => front.serve(encodeOcspRequest([certId], { nonce: new Uint8Array(16).fill(n) }));
    const answers = [];
    for (let n = 1; n <= 6; n++) answers.push(await withNonce(n));
    // Two tokens: two echoed, after which the responder said when the next one comes; until then, the copy.
    expect(answers.map((a) => echoed(a.answer.der))).to.deep.equal([true, true, false, false, false, false]);
    expect(asks).to.equal(1 + 2);
    for (const a of answers.slice(2)) expect(Buffer.from(a.answer.der).equals(Buffer.from(plain.answer.der))).to.equal(true);
    // A nonce RFC 8954 refuses is refused here too, rate spent or not.
    const tooLong = await front.serve(encodeOcspRequest([certId], { nonce: new Uint8Array(33) }));
    expect(parseOcspResponse(tooLong.answer.der).status).to.equal(OCSPResponseStatus.malformedRequest);

    // Half a second later the rate has a token again: the next nonce is asked for and echoed.
    clock += 600;
    const later = await withNonce(7);
    expect(echoed(later.answer.der)).to.equal(true);
    expect(asks).to.equal(1 + 2 + 1);
  });
});
