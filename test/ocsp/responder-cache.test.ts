/** The responder's bounded in-memory cache (maxCachedResponses): which response is dropped when it is full. */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { certIdFor, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { OcspResponder } from '../../ocsp/responder.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { StatusTable, countingKey, issuersOf, type TestIssuer } from './support.js';

describe('OCSP responder cache bound', function () {
  let chain: OpensslChain;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
  });

  function setup(maxCachedResponses: number) {
    const issuers = issuersOf(chain);
    issuers.subCa.key = countingKey(chain.keys.subCa);
    const responder = new OcspResponder<TestIssuer>({ issuers: [issuers.subCa, issuers.root], lookupStatus: new StatusTable().lookup, maxCachedResponses });
    const ask = async (serial: string) => {
      const answer = await responder.respond(encodeOcspRequest([certIdFor(chain.der.subCa, serial)]));
      expect(answer.responseStatus).to.equal('successful');
    };
    return { responder, ask, signatures: () => issuers.subCa.key.count() };
  }

  it('drops a response not served since it was cached before one that was served', async function () {
    const { responder, ask, signatures } = setup(3);
    for (const s of ['0a', '0b', '0c']) await ask(s);
    await ask('0a'); // served: spared by the next eviction
    await ask('0d'); // full: 0b goes, not 0a
    expect(signatures()).to.equal(4);
    expect(responder.stats().cachedResponses).to.equal(3);
    await ask('0a');
    await ask('0c');
    await ask('0d');
    expect(signatures()).to.equal(4);
    await ask('0b'); // was dropped: signed again
    expect(signatures()).to.equal(5);
    expect(responder.stats().cachedResponses).to.equal(3);
  });

  it('stays within the bound when every cached response has been served; a hot response keeps being served from the cache', async function () {
    const { responder, ask, signatures } = setup(3);
    for (const s of ['01', '02', '03']) await ask(s);
    for (const s of ['01', '02', '03']) await ask(s);
    for (let i = 0; i < 1000; i++) await ask('02');
    for (const s of ['04', '05', '06', '07']) {
      await ask(s);
      await ask('02');
      expect(responder.stats().cachedResponses).to.equal(3);
    }
    expect(signatures()).to.equal(7); // 02 was never dropped: signed once
  });
});
