/**
 * The responder against OpenSSL's own OCSP client (`openssl ocsp`), with an openssl-made root -> sub-CA ->
 * leaf chain and a status table the test controls.
 */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeOcspGetPath } from '../../shared/pki/ocsp-request.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { StatusTable, issuersOf, openssl, serialOf, startResponder, type RunningResponder, type TestIssuer } from './support.js';

describe('OCSP responder with the openssl ocsp client', function () {
  let chain: OpensslChain;
  let other: OpensslChain;
  let table: StatusTable;
  let issuers: { subCa: TestIssuer; root: TestIssuer };
  let running: RunningResponder;
  let leafSerial: string;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (other) rmSync(other.dir, { recursive: true, force: true });
  });

  before(async function () {
    [chain, other] = await Promise.all([makeOpensslChain(), makeOpensslChain({ cn: 'Other' })]);
    table = new StatusTable();
    issuers = issuersOf(chain);
    leafSerial = serialOf(chain.pem.leaf);
    running = await startResponder({ issuers: [issuers.subCa, issuers.root], lookupStatus: table.lookup });
  });

  after(async function () {
    await running?.close();
  });

  beforeEach(function () {
    table.reset();
    running.responder.invalidate();
  });

  /** `openssl ocsp` as a client of the responder; the test's chain files by default. */
  function ask(args: string[], c: OpensslChain = chain) {
    return openssl(['ocsp', ...args, '-url', `${running.url}/`, '-CAfile', 'root.pem'], c.dir);
  }

  it('answers good for the leaf, verified by openssl, nonce echoed', async function () {
    const r = await ask(['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
    expect(r.code, r.all).to.equal(0);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^leaf\.pem: good$/m);
    expect(r.all).not.to.match(/nonce/i); // no "WARNING: no nonce in response", no "nonce verify error"
    expect(table.lookups).to.deep.equal([`sub-ca/${leafSerial}`]);
  });

  it('answers revoked with time and reason once the table says so and the serial is invalidated', async function () {
    // Fill the cache with a good answer first.
    let r = await ask(['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
    expect(r.stdout).to.match(/^leaf\.pem: good$/m);

    table.set('sub-ca', leafSerial, { status: 'revoked', revokedAt: new Date('2026-01-02T03:04:05Z'), reason: 'keyCompromise' });
    // Without invalidation the cached, still-valid answer is served: nothing is looked up again.
    r = await ask(['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
    expect(r.stdout).to.match(/^leaf\.pem: good$/m);
    expect(table.lookups).to.have.length(1);

    running.responder.invalidate(leafSerial.toUpperCase());
    r = await ask(['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
    expect(r.code, r.all).to.equal(0);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^leaf\.pem: revoked$/m);
    expect(r.stdout).to.match(/Reason: keyCompromise/);
    expect(r.stdout).to.match(/Revocation Time: Jan {1,2}2 03:04:05 2026 GMT/);

    // A request with a nonce is freshly signed and says the same.
    r = await ask(['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^leaf\.pem: revoked$/m);
    expect(r.all).not.to.match(/nonce/i);
  });

  it('answers revoked without a reason, and unknown, as the table says', async function () {
    table.set('sub-ca', serialOf(chain.pem.tsa), { status: 'revoked', revokedAt: new Date('2026-03-01T00:00:00Z') });
    table.set('sub-ca', leafSerial, { status: 'unknown' });
    const r = await ask(['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-cert', 'tsa.pem']);
    expect(r.code, r.all).to.equal(0);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^leaf\.pem: unknown$/m);
    expect(r.stdout).to.match(/^tsa\.pem: revoked$/m);
    expect(r.stdout).not.to.match(/Reason:/);
  });

  it('answers a SHA-256 CertID, with and without a nonce', async function () {
    for (const nonce of [[], ['-no_nonce']]) {
      const r = await ask([...nonce, '-sha256', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
      expect(r.code, r.all).to.equal(0);
      expect(r.all).to.include('Response verify OK');
      expect(r.stdout).to.match(/^leaf\.pem: good$/m);
    }
  });

  it("answers the sub-CA's own status, signed by the root", async function () {
    table.set('root', serialOf(chain.pem.subCa), { status: 'revoked', revokedAt: new Date('2026-02-01T00:00:00Z'), reason: 'cACompromise' });
    const r = await ask(['-issuer', 'root.pem', '-cert', 'sub-ca.pem']);
    expect(r.code, r.all).to.equal(0);
    expect(r.all).to.include('Response verify OK');
    expect(r.stdout).to.match(/^sub-ca\.pem: revoked$/m);
    expect(r.stdout).to.match(/Reason: cACompromise/);
    expect(table.lookups).to.deep.equal([`root/${serialOf(chain.pem.subCa)}`]);
  });

  it('answers unauthorized for a certificate of a CA it does not know', async function () {
    const r = await ask(['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem'], other);
    expect(r.all).to.match(/Responder Error: unauthorized \(6\)/);
    expect(table.lookups).to.deep.equal([]);
  });

  it('answers the RFC 5019 GET form; openssl verifies the response', async function () {
    table.set('sub-ca', leafSerial, { status: 'revoked', revokedAt: new Date('2026-01-02T03:04:05Z'), reason: 'superseded' });
    // openssl 3.0 has no option to send GET, so the request is made by openssl and sent by fetch.
    const reqFile = path.join(chain.dir, 'get-req.der');
    const made = await openssl(['ocsp', '-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-reqout', reqFile], chain.dir);
    expect(made.code, made.all).to.equal(0);
    const der = new Uint8Array(await readFile(reqFile));
    const b64 = Buffer.from(der).toString('base64');

    // Percent-encoded path (RFC 6960 A.1) and the raw base64 some clients send: same answer.
    for (const p of [encodeOcspGetPath(der), `/${b64}`]) {
      const res = await fetch(`${running.url}${p}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/ocsp-response');
      const body = new Uint8Array(await res.arrayBuffer());
      const respFile = path.join(chain.dir, 'get-resp.der');
      await writeFile(respFile, body);
      const r = await openssl(['ocsp', '-respin', respFile, '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem', '-CAfile', 'root.pem'], chain.dir);
      expect(r.code, r.all).to.equal(0);
      expect(r.all).to.include('Response verify OK');
      expect(r.stdout).to.match(/^leaf\.pem: revoked$/m);
      expect(r.stdout).to.match(/Reason: superseded/);

      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
      const nextUpdate = Date.parse(/Next Update: (.*)$/m.exec(r.stdout)![1]!);
      expect(maxAge).to.be.greaterThan(0);
      expect(Date.now() + maxAge * 1000).to.be.at.most(nextUpdate + 1000);
      expect(res.headers.get('etag')).to.match(/^"[0-9a-f]{40}"$/);
      expect(res.headers.get('last-modified')).to.be.a('string');
    }
    expect(table.lookups).to.have.length(1); // the second GET came from the cache
  });

  it('signs once for repeated requests without a nonce, once per request with one', async function () {
    const key = issuers.subCa.key;
    const before = key.count();
    const rootBefore = issuers.root.key.count();
    for (let i = 0; i < 4; i++) {
      const r = await ask(['-no_nonce', '-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
      expect(r.stdout).to.match(/^leaf\.pem: good$/m);
    }
    expect(key.count() - before).to.equal(1);
    for (let i = 0; i < 2; i++) {
      const r = await ask(['-issuer', 'sub-ca.pem', '-cert', 'leaf.pem']);
      expect(r.all).to.include('Response verify OK');
      expect(r.all).not.to.match(/nonce/i);
    }
    expect(key.count() - before).to.equal(3);
    expect(issuers.root.key.count()).to.equal(rootBefore); // leaf answers are signed by the sub-CA only
  });
});
