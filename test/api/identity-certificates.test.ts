/**
 * People's identity certificates (CAWG identity): a name on the account, a certificate issued by the scheduler through
 * the one door, checked by OpenSSL and against the C2PA claim-signer profile; revoked when an admin says so or the
 * user is deleted, as the OCSP responder (asked by `openssl ocsp`) and leaf.crl then say.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { Crl } from '../../shared/db/repositories/crls.js';
import { createLogger } from '../../shared/logger.js';
import { c2paProfileProblems } from '../../shared/pki/c2pa-profile.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { pemBlocks } from '../../shared/pki/pem.js';
import { PostgresPkiEvents } from '../../shared/pki/pki-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { openssl } from '../pki/helpers.js';
import { addOrgUser, bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { askServiceOcsp } from '../support/service-ocsp.js';
import { until } from '../support/until.js';

describe('identity certificates for the people who sign', function () {
  this.timeout(60_000);
  let api: TestApi;
  let pki: InitPkiResult;
  let events: PostgresPkiEvents;
  let ocsp: OcspRole;
  let a: Account;
  let b: Account;
  const dir = mkdtempSync(path.join(tmpdir(), 'identity-'));
  const files: Record<string, string> = {};

  before(async () => {
    api = await startTestApi();
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    events = new PostgresPkiEvents(api.db.knex, api.db.url);
    ocsp = await startOcspRole(api.config, api.db.knex, vault, createLogger('silent', 'ocsp'), { events, host: '127.0.0.1' });
    a = await registerAccount(api.app, 'Daily Planet');
    b = await registerAccount(api.app, 'Daily Bugle');
    for (const [name, der] of Object.entries({ root: pki.root.der, subCa: pki.subCa.der })) {
      files[name] = path.join(dir, `${name}.pem`);
      writeFileSync(files[name]!, new X509Certificate(der).toString());
    }
  });
  after(async () => {
    await ocsp?.();
    await events?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const issue = (auth: Record<string, string>) => request(api.app).post('/auth/me/identity-certificate').set(auth);

  const ocspStatus = (certificatePem: string) => askServiceOcsp(dir, { root: files.root!, subCa: files.subCa! }, ocsp.ocspPort, certificatePem);

  it('a name is given at registration or with PATCH /auth/me, and shown by GET /auth/me', async () => {
    const res = await request(api.app).post('/auth/register').send({ email: `named-${Date.now()}@example.com`, password: 'a long enough passphrase', org_name: 'Named', name: 'Lois Lane' }).expect(201);
    expect((await request(api.app).get('/auth/me').set(bearer(res.body.access_token)).expect(200)).body.name).to.equal('Lois Lane');
    expect((await request(api.app).get('/auth/me').set(bearer(a.access)).expect(200)).body.name).to.equal(null);
    const patched = await request(api.app).patch('/auth/me').set(bearer(a.access)).send({ name: '  Jane Doe ' }).expect(200);
    expect(patched.body).to.include({ name: 'Jane Doe', user_id: a.userId });
    expect((await request(api.app).get('/auth/me').set(bearer(a.access)).expect(200)).body.name).to.equal('Jane Doe');
    for (const name of ['', 'x'.repeat(65), 42]) {
      const bad = await request(api.app).patch('/auth/me').set(bearer(a.access)).send({ name });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.be.a('string');
    }
  });

  it('without a name there is no certificate (409 name_required); an API key cannot ask for one (403)', async () => {
    const viewer = await addOrgUser(api.app, b, 'viewer');
    const res = await issue(bearer(viewer.access));
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('name_required');
    const key = (await request(api.app).post('/org/api-keys').set(bearer(b.access)).send({ name: 'cms' }).expect(201)).body.key;
    expect((await issue({ 'X-API-Key': key })).status).to.equal(403);
  });

  it('issues CN = name, O = organisation, the e-mail in subjectAltName, EKU emailProtection, chained to the root, meeting the claim-signer profile', async () => {
    const res = await issue(bearer(a.access)).expect(201);
    expect(res.body).to.include({ email: a.email, status: 'valid' });
    const [leaf, subCa] = pemBlocks(res.body.chain_pem).map((p) => p.der);
    const cert = new X509Certificate(leaf!);
    expect(cert.subject).to.include('CN=Jane Doe').and.include('O=Daily Planet');
    expect(cert.subjectAltName).to.equal(`email:${a.email}`);
    expect(cert.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.4']);
    expect(cert.checkIssued(new X509Certificate(subCa!))).to.equal(true);
    expect(c2paProfileProblems(leaf!, 'claim_signer')).to.deep.equal([]);
    const leafFile = path.join(dir, 'jane.pem');
    writeFileSync(leafFile, res.body.certificate_pem);
    const verified = await openssl(['verify', '-CAfile', files.root!, '-untrusted', files.subCa!, '-purpose', 'smimesign', leafFile], dir);
    expect(verified.code, verified.output).to.equal(0);
    // Its own vault key, named for the organisation so the worker may sign with it.
    const row = await api.db.knex('certificates').where({ serial: res.body.serial }).first('role', 'key_name', 'org_id');
    expect(row).to.deep.include({ role: 'identity', org_id: null });
    expect(row.key_name).to.equal(`org-${a.orgId}-person-${a.userId}-1`);
    expect(await ocspStatus(res.body.certificate_pem)).to.match(/: good/);

    const mine = (await request(api.app).get('/auth/me/identity-certificate').set(bearer(a.access)).expect(200)).body;
    expect(mine.name).to.equal('Jane Doe');
    expect(mine.current.serial).to.equal(res.body.serial);
    expect(mine.certificates.map((c: { serial: string }) => c.serial)).to.deep.equal([res.body.serial]);
    // Another organisation sees none of it.
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(b.access)).expect(200)).body.certificates).to.deep.equal([]);
  });

  it("an admin revokes a user's certificate: OCSP answers revoked and leaf.crl lists it; another organisation's admin gets 404", async () => {
    const signer = await addOrgUser(api.app, a, 'signer');
    await request(api.app).patch('/auth/me').set(bearer(signer.access)).send({ name: 'Clark Kent' }).expect(200);
    const cert = (await issue(bearer(signer.access)).expect(201)).body;
    const foreign = await request(api.app).post(`/org/users/${signer.userId}/identity-certificate/revoke`).set(bearer(b.access)).send({});
    expect(foreign.status).to.equal(404);
    expect(await ocspStatus(cert.certificate_pem)).to.match(/: good/);
    const bad = await request(api.app).post(`/org/users/${signer.userId}/identity-certificate/revoke`).set(bearer(a.access)).send({ reason: 'removeFromCRL' });
    expect(bad.status).to.equal(400);

    const res = await request(api.app).post(`/org/users/${signer.userId}/identity-certificate/revoke`).set(bearer(a.access)).send({ reason: 'keyCompromise' }).expect(200);
    expect(res.body.revoked.map((c: { serial: string; status: string }) => [c.serial, c.status])).to.deep.equal([[cert.serial, 'revoked']]);
    const status = await until('the OCSP answer revoked', async () => {
      const s = await ocspStatus(cert.certificate_pem);
      return /: revoked/.test(s) ? s : undefined;
    });
    expect(status).to.include('Reason: keyCompromise');
    const newest = (await Crl.query(api.db.knex).where({ issuer_id: pki.subCa.id }).orderBy('crl_number', 'desc').first())!;
    expect(parseCrl(newest.der).revoked.map((e) => e.serialHex)).to.include(cert.serial);
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(signer.access)).expect(200)).body.current).to.equal(null);
  });

  it("deleting a user revokes their certificate (affiliationChanged) in OCSP and leaf.crl", async () => {
    const signer = await addOrgUser(api.app, a, 'signer');
    await request(api.app).patch('/auth/me').set(bearer(signer.access)).send({ name: 'Jimmy Olsen' }).expect(200);
    const cert = (await issue(bearer(signer.access)).expect(201)).body;
    await request(api.app).delete(`/org/users/${signer.userId}`).set(bearer(a.access)).expect(204);
    const status = await until('the OCSP answer revoked', async () => {
      const s = await ocspStatus(cert.certificate_pem);
      return /: revoked/.test(s) ? s : undefined;
    });
    expect(status).to.include('Reason: affiliationChanged');
    const listed = await until('leaf.crl listing it', async () => {
      const newest = await Crl.query(api.db.knex).where({ issuer_id: pki.subCa.id }).orderBy('crl_number', 'desc').first();
      return newest && parseCrl(newest.der).revoked.some((e) => e.serialHex === cert.serial) ? true : undefined;
    });
    expect(listed).to.equal(true);
    // The record of whose certificate it was stays (the user is gone).
    const link = await api.db.knex('identity_certificates as i').join('certificates as c', 'c.id', 'i.certificate_id').where('c.serial', cert.serial).first('i.user_id', 'i.org_id');
    expect(link).to.deep.equal({ user_id: null, org_id: a.orgId });
  });
});
