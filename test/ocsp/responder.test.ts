/** The responder core without HTTP: issuer matching, cache, refresh, invalidation, nonce policy, failures. */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { TAG, encodeTlv } from '../../shared/pki/der.js';
import { certIdFor, encodeOcspRequest, issuerHashes, type OcspHashAlgorithm } from '../../shared/pki/ocsp-request.js';
import { VaultUnavailableError } from '../../shared/vault/types.js';
import { OcspResponder, type OcspResponderOptions } from '../../ocsp/responder.js';
import type { OcspAnswer, OcspSignedAnswer } from '../../ocsp/source.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { OCSPResponseStatus, StatusTable, countingKey, issuersOf, parseOcspResponse, serialOf, type TestIssuer } from './support.js';

const hex = (b: Uint8Array | ArrayBuffer) => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('hex');

function signed(answer: OcspAnswer): OcspSignedAnswer {
  expect(answer.responseStatus, `expected a signed answer, got ${answer.responseStatus}`).to.equal('successful');
  return answer as OcspSignedAnswer;
}

describe('OCSP responder core', function () {
  let chain: OpensslChain;
  let other: OpensslChain;
  let leaf: string;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (other) rmSync(other.dir, { recursive: true, force: true });
  });

  before(async function () {
    [chain, other] = await Promise.all([makeOpensslChain(), makeOpensslChain({ cn: 'Other' })]);
    leaf = serialOf(chain.pem.leaf);
  });

  /** A fresh responder, its issuers (counting keys), table and a controllable clock. */
  function setup(options: Partial<OcspResponderOptions<TestIssuer>> = {}, keyOptions: Parameters<typeof countingKey>[1] = {}) {
    const issuers = issuersOf(chain);
    issuers.subCa.key = countingKey(chain.keys.subCa, keyOptions);
    const table = new StatusTable();
    const clock = { now: Date.now() };
    const responder = new OcspResponder<TestIssuer>({
      issuers: [issuers.subCa, issuers.root],
      lookupStatus: table.lookup,
      now: () => clock.now,
      ...options,
    });
    return { responder, table, clock, subCa: issuers.subCa, root: issuers.root };
  }

  function request(serial: string, options: { alg?: OcspHashAlgorithm; nonce?: Uint8Array; issuer?: Uint8Array } = {}): Uint8Array {
    return encodeOcspRequest([certIdFor(options.issuer ?? chain.der.subCa, serial, options.alg)], { nonce: options.nonce });
  }

  it('answers from the cache: one signature for repeated and for concurrent requests', async function () {
    const { responder, subCa, table } = setup();
    const first = signed(await responder.respond(request(leaf)));
    for (let i = 0; i < 5; i++) expect(hex((await responder.respond(request(leaf))).der)).to.equal(hex(first.der));
    expect(subCa.key.count()).to.equal(1);

    const answers = await Promise.all(Array.from({ length: 50 }, () => responder.respond(request('0a0b0c'))));
    expect(new Set(answers.map((a) => hex(a.der))).size).to.equal(1);
    expect(subCa.key.count()).to.equal(2);
    expect(table.lookups).to.deep.equal([`sub-ca/${leaf}`, 'sub-ca/0a0b0c']);
    expect(responder.stats()).to.include({ signatures: 2, cachedResponses: 2, cacheMisses: 51, cacheHits: 5 });
  });

  it('finds the issuer under SHA-1, SHA-256, SHA-384 and SHA-512 CertIDs, each cached on its own', async function () {
    const { responder, subCa, root } = setup();
    for (const alg of ['sha1', 'sha256', 'sha384', 'sha512'] as const) {
      const answer = signed(await responder.respond(request(leaf, { alg })));
      const single = parseOcspResponse(answer.der).basic!.tbsResponseData.responses[0]!;
      expect(hex(issuerHashes(chain.der.subCa, alg).issuerKeyHash)).to.equal(hex(single.certID.issuerKeyHash.buffer));
    }
    signed(await responder.respond(request(serialOf(chain.pem.subCa), { issuer: chain.der.root })));
    expect(subCa.key.count()).to.equal(4);
    expect(root.key.count()).to.equal(1);
  });

  it('puts the right statuses, times and responder into the response', async function () {
    const { responder, table, clock } = setup({ validitySeconds: 7200 });
    clock.now = Date.parse('2026-06-01T12:00:00.750Z');
    table.set('sub-ca', leaf, { status: 'revoked', revokedAt: new Date('2026-05-01T00:00:00Z'), reason: 'superseded' });
    table.set('sub-ca', '05', { status: 'unknown' });
    const twoIds = encodeOcspRequest([certIdFor(chain.der.subCa, leaf), certIdFor(chain.der.subCa, '05'), certIdFor(chain.der.subCa, '06')]);
    const answer = signed(await responder.respond(twoIds));
    expect(answer.thisUpdate.toISOString()).to.equal('2026-06-01T12:00:00.000Z');
    expect(answer.nextUpdate.toISOString()).to.equal('2026-06-01T14:00:00.000Z');
    const data = parseOcspResponse(answer.der).basic!.tbsResponseData;
    expect(data.responses.map((r) => Object.keys(r.certStatus).find((k) => (r.certStatus as unknown as Record<string, unknown>)[k] !== undefined))).to.deep.equal(['revoked', 'unknown', 'good']);
    expect(data.responses[0]!.certStatus.revoked!.revocationReason!.reason).to.equal(4);
    expect(data.responses.every((r) => r.nextUpdate!.getTime() === answer.nextUpdate.getTime())).to.equal(true);
  });

  it('answers unauthorized for unknown CAs, a wrong name hash, an unsupported hash and mixed CAs', async function () {
    const { responder, table } = setup();
    const expectUnauthorized = async (der: Uint8Array) => {
      const answer = await responder.respond(der);
      expect(answer.responseStatus).to.equal('unauthorized');
      expect(parseOcspResponse(answer.der).status).to.equal(OCSPResponseStatus.unauthorized);
    };
    await expectUnauthorized(request(serialOf(other.pem.leaf), { issuer: other.der.subCa }));
    // The sub-CA's key hash with the root's name hash.
    const { issuerKeyHash } = issuerHashes(chain.der.subCa, 'sha1');
    const { issuerNameHash } = issuerHashes(chain.der.root, 'sha1');
    const sha1Alg = encodeTlv(TAG.SEQUENCE, Uint8Array.of(0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a), Uint8Array.of(0x05, 0x00));
    const md5Alg = encodeTlv(TAG.SEQUENCE, Uint8Array.of(0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05), Uint8Array.of(0x05, 0x00));
    const certId = (alg: Uint8Array, nameHash: Uint8Array) =>
      encodeTlv(TAG.SEQUENCE, alg, encodeTlv(TAG.OCTET_STRING, nameHash), encodeTlv(TAG.OCTET_STRING, issuerKeyHash), Uint8Array.of(0x02, 0x01, 0x05));
    await expectUnauthorized(encodeOcspRequest([certId(sha1Alg, issuerNameHash)]));
    await expectUnauthorized(encodeOcspRequest([certId(md5Alg, issuerHashes(chain.der.subCa, 'sha1').issuerNameHash)]));
    await expectUnauthorized(encodeOcspRequest([certIdFor(chain.der.subCa, leaf), certIdFor(chain.der.root, serialOf(chain.pem.subCa))]));
    await expectUnauthorized(encodeOcspRequest([certIdFor(chain.der.subCa, leaf), certIdFor(other.der.subCa, leaf)]));
    expect(table.lookups).to.deep.equal([]);
  });

  it('answers malformedRequest for garbage, too many CertIDs and RFC 8954-invalid nonces', async function () {
    const { responder } = setup({ maxCertIdsPerRequest: 3 });
    for (const der of [
      new Uint8Array(0),
      Uint8Array.of(0x30, 0x03, 0x02),
      encodeOcspRequest(['01', '02', '03', '04'].map((s) => certIdFor(chain.der.subCa, s))),
      request(leaf, { nonce: new Uint8Array(0) }),
      request(leaf, { nonce: new Uint8Array(33) }),
    ]) {
      const answer = await responder.respond(der);
      expect(answer.responseStatus).to.equal('malformedRequest');
      expect(hex(answer.der)).to.equal('30030a0101');
    }
    expect(signed(await responder.respond(request(leaf, { nonce: new Uint8Array(32) }))).nonceEchoed).to.equal(true);
    expect(signed(await responder.respond(request(leaf, { nonce: new Uint8Array(1) }))).nonceEchoed).to.equal(true);
  });

  it('echoes a nonce in a freshly signed response, every time', async function () {
    const { responder, subCa } = setup();
    const cached = signed(await responder.respond(request(leaf)));
    for (const n of [1, 2]) {
      const nonce = new Uint8Array(16).fill(n);
      const answer = signed(await responder.respond(request(leaf, { nonce })));
      expect(answer.nonceEchoed).to.equal(true);
      expect(hex(answer.der)).not.to.equal(hex(cached.der));
      const ext = parseOcspResponse(answer.der).basic!.tbsResponseData.responseExtensions!;
      expect(ext.map((e) => [e.extnID, hex(e.extnValue.buffer)])).to.deep.equal([['1.3.6.1.5.5.7.48.1.2', hex(encodeTlv(TAG.OCTET_STRING, nonce))]]);
    }
    expect(subCa.key.count()).to.equal(3);
    expect(hex((await responder.respond(request(leaf))).der)).to.equal(hex(cached.der)); // the cache is untouched
  });

  it('signs a nonce response with the statuses of the cached answer while it is fresh, else looks them up', async function () {
    const { responder, table, clock } = setup();
    const certStatusOf = (answer: OcspAnswer) => parseOcspResponse(signed(answer).der).basic!.tbsResponseData.responses[0]!.certStatus;
    const withNonce = (n: number) => responder.respond(request(leaf, { nonce: new Uint8Array(16).fill(n) }));
    expect(certStatusOf(await withNonce(1)).good).to.equal(null); // nothing cached: looked up
    expect(table.lookups).to.have.length(1);
    signed(await responder.respond(request(leaf))); // cached, looked up
    expect(certStatusOf(await withNonce(2)).good).to.equal(null);
    expect(table.lookups).to.have.length(2);

    // A revocation drops the cached answer: the nonce response looks the status up, and the next cached answer has it.
    table.set('sub-ca', leaf, { status: 'revoked', revokedAt: new Date('2026-01-01T00:00:00Z') });
    responder.invalidate(leaf);
    expect(certStatusOf(await withNonce(3)).revoked).to.not.equal(undefined);
    expect(table.lookups).to.have.length(3);
    expect(certStatusOf(await responder.respond(request(leaf))).revoked).to.not.equal(undefined);
    expect(certStatusOf(await withNonce(4)).revoked).to.not.equal(undefined);
    expect(table.lookups).to.have.length(4);

    // Past the refresh point the cached answer's statuses are not used.
    clock.now += 12 * 3600_000 + 1000;
    await withNonce(5);
    expect(table.lookups).to.have.length(5);
  });

  it("with nonces: 'ignore', answers nonce requests from the cache", async function () {
    const { responder, subCa } = setup({ nonces: 'ignore' });
    const a = signed(await responder.respond(request(leaf, { nonce: new Uint8Array(16).fill(1) })));
    const b = signed(await responder.respond(request(leaf, { nonce: new Uint8Array(16).fill(2) })));
    expect(a.nonceEchoed).to.equal(false);
    expect(hex(a.der)).to.equal(hex(b.der));
    expect(subCa.key.count()).to.equal(1);
  });

  it('bounds nonce signatures: beyond the budget the cached response is sent without the nonce', async function () {
    const { responder, subCa } = setup({ maxConcurrentNonceSignatures: 2, maxQueuedNonceSignatures: 1 }, { delayMs: 50 });
    signed(await responder.respond(request(leaf))); // cache filled
    const answers = (await Promise.all(Array.from({ length: 10 }, (_, i) => responder.respond(request(leaf, { nonce: new Uint8Array(16).fill(i + 1) }))))).map(signed);
    expect(answers.filter((a) => a.nonceEchoed)).to.have.length(3);
    expect(answers.filter((a) => !a.nonceEchoed)).to.have.length(7);
    expect(subCa.key.count()).to.equal(1 + 3);
    expect(responder.stats()).to.include({ nonceResponses: 3, nonceFallbacks: 7 });
  });

  it('bounds the rate of nonce signatures: beyond it the cached response is sent without the nonce', async function () {
    const { responder, subCa, clock } = setup({ nonceSignaturesPerSecond: 2 });
    const ask = async (i: number) => signed(await responder.respond(request(leaf, { nonce: new Uint8Array(16).fill(i) }))).nonceEchoed;
    const burst = [];
    for (let i = 1; i <= 5; i++) burst.push(await ask(i));
    expect(burst).to.deep.equal([true, true, false, false, false]);
    expect(subCa.key.count()).to.equal(3); // two nonce responses and one cache fill
    clock.now += 500;
    expect([await ask(6), await ask(7)]).to.deep.equal([true, false]);
    clock.now += 10_000;
    expect([await ask(8), await ask(9), await ask(10)]).to.deep.equal([true, true, false]);
    expect(responder.stats()).to.include({ nonceResponses: 5, nonceFallbacks: 5 });
  });

  it('bounds cache fills: beyond the queue the answer is tryLater', async function () {
    const { responder, subCa } = setup({ maxConcurrentSignatures: 1, maxQueuedSignatures: 1 }, { delayMs: 50 });
    const answers = await Promise.all(['01', '02', '03', '04'].map((s) => responder.respond(request(s))));
    expect(answers.map((a) => a.responseStatus)).to.deep.equal(['successful', 'successful', 'tryLater', 'tryLater']);
    expect(subCa.key.count()).to.equal(2);
    signed(await responder.respond(request('03'))); // later it is answered
  });

  it('re-signs in the background after the refresh point and never serves an expired response', async function () {
    let failing = false;
    const { responder, clock, subCa } = setup(
      { validitySeconds: 100, refreshAfterSeconds: 50, refreshRetrySeconds: 10 },
      { fail: () => (failing ? new VaultUnavailableError('vault down') : undefined) },
    );
    const first = signed(await responder.respond(request(leaf)));
    clock.now += 49_000;
    expect(hex((await responder.respond(request(leaf))).der)).to.equal(hex(first.der));
    expect(subCa.key.count()).to.equal(1);

    clock.now += 2_000; // past the refresh point: the old answer at once, a new one signed behind it
    expect(hex((await responder.respond(request(leaf))).der)).to.equal(hex(first.der));
    await new Promise((r) => setTimeout(r, 50));
    expect(subCa.key.count()).to.equal(2);
    const second = signed(await responder.respond(request(leaf)));
    expect(second.thisUpdate.getTime()).to.be.greaterThan(first.thisUpdate.getTime());

    // Vault down: refreshes fail (retried no more than every 10 s) and the cached answer is served until it expires.
    failing = true;
    clock.now += 60_000;
    for (let i = 0; i < 5; i++) expect(hex((await responder.respond(request(leaf))).der)).to.equal(hex(second.der));
    await new Promise((r) => setTimeout(r, 20));
    expect(subCa.key.count()).to.equal(3);
    clock.now += 11_000;
    await responder.respond(request(leaf));
    await new Promise((r) => setTimeout(r, 20));
    expect(subCa.key.count()).to.equal(4);
    clock.now = second.nextUpdate.getTime();
    expect((await responder.respond(request(leaf))).responseStatus).to.equal('tryLater');
    failing = false;
    const third = signed(await responder.respond(request(leaf)));
    expect(third.nextUpdate.getTime()).to.be.greaterThan(clock.now);
  });

  it('invalidate(serial) makes the next answer come from a fresh lookup; invalidate() drops everything', async function () {
    const { responder, table } = setup();
    signed(await responder.respond(request(leaf)));
    signed(await responder.respond(request('77')));
    table.set('sub-ca', leaf, { status: 'revoked', revokedAt: new Date('2026-01-01T00:00:00Z') });
    const stillCached = signed(await responder.respond(request(leaf)));
    expect(parseOcspResponse(stillCached.der).basic!.tbsResponseData.responses[0]!.certStatus.good).to.equal(null);

    responder.invalidate(`00${leaf.toUpperCase()}`);
    const fresh = signed(await responder.respond(request(leaf)));
    expect(parseOcspResponse(fresh.der).basic!.tbsResponseData.responses[0]!.certStatus.revoked).to.not.equal(undefined);
    await responder.respond(request('77'));
    expect(table.lookups).to.deep.equal([`sub-ca/${leaf}`, 'sub-ca/77', `sub-ca/${leaf}`]);

    responder.invalidate();
    expect(responder.stats().cachedResponses).to.equal(0);
    await responder.respond(request('77'));
    expect(table.lookups.at(-1)).to.equal('sub-ca/77');
  });

  it('does not cache an answer whose signing began before invalidate()', async function () {
    const { responder, table } = setup({}, { delayMs: 100 });
    const pending = responder.respond(request(leaf)); // looked up as good, now being signed
    await new Promise((r) => setTimeout(r, 20));
    table.set('sub-ca', leaf, { status: 'revoked', revokedAt: new Date('2026-01-01T00:00:00Z'), reason: 'keyCompromise' });
    responder.invalidate(leaf);
    await pending;
    const after = signed(await responder.respond(request(leaf)));
    expect(parseOcspResponse(after.der).basic!.tbsResponseData.responses[0]!.certStatus.revoked).to.not.equal(undefined);
  });

  it('turns failures into OCSP errors: vault outage -> tryLater, lookup or key failure -> internalError', async function () {
    const errors: unknown[] = [];
    const logger = { warn: () => {}, error: (obj: unknown) => void errors.push(obj) } as never;
    let failure: Error | undefined = new VaultUnavailableError('vault down');
    const { responder } = setup({ logger }, { fail: () => failure });
    expect((await responder.respond(request(leaf))).responseStatus).to.equal('tryLater');
    failure = new Error('bad key');
    expect((await responder.respond(request(leaf))).responseStatus).to.equal('internalError');
    failure = undefined;
    const broken = new OcspResponder<TestIssuer>({
      issuers: [issuersOf(chain).subCa],
      lookupStatus: async () => {
        throw new Error('database down');
      },
      logger,
    });
    expect((await broken.respond(request(leaf))).responseStatus).to.equal('internalError');
    expect(errors).to.have.length(2);
    signed(await responder.respond(request(leaf))); // recovered
  });

  it('refuses a vault key that does not match its certificate', function () {
    expect(() => new OcspResponder({ issuers: [{ certificate: chain.der.subCa, key: chain.keys.root }], lookupStatus: async () => ({ status: 'good' }) })).to.throw(/does not hold the public key/);
    expect(() => new OcspResponder({ issuers: [{ certificate: chain.der.subCa, key: chain.keys.subCa }], lookupStatus: async () => ({ status: 'good' }), validitySeconds: 10, refreshAfterSeconds: 10 })).to.throw(RangeError);
  });
});
