/**
 * Which identity certificate a verified file's X.509 identity is: the service's own only when the issuer and the serial
 * both match its record; another CA's certificate with the same serial is judged as any other.
 */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { judgedIdentities } from '../../api/media/identity-judgement.js';
import type { IdentityView } from '../../shared/c2pa/identities.js';
import { insertCertificate } from '../../shared/db/repositories/certificates.js';
import { readCertificate } from '../../shared/pki/certificate.js';
import type { TrustStore } from '../../shared/trust/store.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

describe('identity judgement: issuer and serial, not serial alone', function () {
  let db: TestDatabase;
  let ours: OpensslChain;
  let theirs: OpensslChain;
  const store = { cawgAnchors: [] } as unknown as TrustStore;

  before(async () => {
    [db, ours, theirs] = await Promise.all([createTestDatabase(), makeOpensslChain({ cn: 'Ours' }), makeOpensslChain({ cn: 'Theirs' })]);
  });
  after(async () => {
    await db?.drop();
    for (const c of [ours, theirs]) if (c) rmSync(c.dir, { recursive: true, force: true });
  });

  it('names the service CA for its own certificate, and not for another CA\'s with the same serial', async () => {
    const { facts } = readCertificate(ours.der.leaf);
    await insertCertificate(db.knex, { serial: facts.serialHex, role: 'identity', issuerId: null, keyName: 'identity', subject: facts.subject, issuer: facts.issuer, notBefore: facts.notBefore, notAfter: facts.notAfter, der: ours.der.leaf, fingerprintSha256: facts.fingerprintSha256 });
    const identity = (issuer: string): IdentityView => ({
      label: 'cawg.identity', sig_type: 'cawg.x509.cose', name: 'Jane Doe', organisation: null, email: 'jane@elsewhere.example', roles: [],
      issuer, serial: facts.serialHex, verdict: 'trusted', codes: { success: [], informational: [], failure: [] },
    });
    const theirIssuer = readCertificate(theirs.der.leaf).facts.issuer;
    expect(theirIssuer).not.to.equal(facts.issuer);

    const [own] = await judgedIdentities(db.knex, store, [identity(facts.issuer)]);
    expect(own).to.deep.include({ trust_source: 'service_ca', issuer: facts.issuer });
    const [foreign] = await judgedIdentities(db.knex, store, [identity(theirIssuer)]);
    expect(foreign).to.deep.include({ trust_source: 'cawg_anchor', issuer: theirIssuer, email: 'jane@elsewhere.example' });
  });
});
