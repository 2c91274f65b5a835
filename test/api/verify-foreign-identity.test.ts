/**
 * The public verify names a person the service has no record of (their identity certificate from another CA, the file
 * signed elsewhere) as fully as its own: the e-mail address and issuer come from the certificate in the identity
 * assertion's own signature. A damaged identity signature leaves them null; the answer is still 200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { signedAsPerson } from '../c2pa/helpers.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { makeOpensslCa, opensslPerson, type OpensslCa, type OpensslPerson } from '../support/openssl-ca.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

describe('public verify: a foreign X.509 identity’s e-mail address and issuer', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'foreign-identity-'));
  let api: TestApi;
  let ca: OpensslCa;
  let agency: OpensslChain;
  let person: OpensslPerson;
  let signed: Uint8Array;

  before(async () => {
    ca = makeOpensslCa('Newsroom');
    [api, agency] = await Promise.all([startTestApi(), makeOpensslChain({ cn: 'Agency' })]);
    person = await opensslPerson(ca, dir, { name: 'Jane Doe', organisation: 'Daily Planet', email: 'jane@planet.example' });
    signed = await signedAsPerson(agency, person);
  });
  after(async () => {
    await api?.close();
    ca?.cleanup();
    if (agency) rmSync(agency.dir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  const verify = (bytes: Uint8Array) => request(api.app).post('/v1/verify').attach('file', Buffer.from(bytes), 'byline.jpg');

  it("names the person with the e-mail address in their certificate and its issuing CA, though no anchor vouches and the service has no record of them", async () => {
    const res = await verify(signed);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.identities).to.have.length(1);
    expect(res.body.identities[0]).to.deep.include({
      name: 'Jane Doe',
      organisation: 'Daily Planet',
      email: 'jane@planet.example',
      issuer: 'CN=Newsroom Issuing CA,O=Newsroom CA,C=GB',
      roles: ['cawg.creator'],
      verdict: 'untrusted',
      trust_source: null,
    });
  });

  it("answers 200 with the e-mail address and issuer null when the identity's certificate is damaged in the file", async () => {
    const damaged = Uint8Array.from(signed);
    const at = Buffer.from(damaged).indexOf(Buffer.from(person.chainDer[0]!));
    expect(at, 'the certificate is in the file').to.be.greaterThan(0);
    damaged[at + 1] ^= 0x7f; // the certificate SEQUENCE's length
    const res = await verify(damaged);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.identities).to.have.length(1);
    expect(res.body.identities[0]).to.include({ email: null, issuer: null, verdict: 'invalid' });
  });
});
