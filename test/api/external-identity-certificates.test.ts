/**
 * A person takes their identity certificate from the organisation's external CA (OpenSSL's `openssl ca` plays it, its
 * root one of the organisation's trust anchors): the service makes the person's own vault key and a CSR that OpenSSL
 * verifies (CN = name, O = organisation, their e-mail address in subjectAltName, EKU emailProtection), chains that
 * fail a check are refused with its code, the CA's chain is accepted, and a file signed as the person carries an
 * identity that c2pa-rs, given the CA's root as a CAWG anchor, trusts and that the service's verification names,
 * vouched for by the organisation's anchor.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps } from '../../workers/sign-job/deps.js';
import { openssl } from '../pki/helpers.js';
import { addOrgUser, bearer, clearSignQueue, downloadFile, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';

const JPEG = readFileSync(new URL('../fixtures/small.jpg', import.meta.url));
const REQUESTS = '/auth/me/identity-certificate/requests';

describe("identity certificates from the organisation's external CA", function () {
  this.timeout(120_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'external-identity-'));
  let api: TestApi;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let ca: OpensslCa;
  let stranger: OpensslCa;
  let jane: Account;
  let requestId: string;
  let csrPem: string;

  before(async () => {
    ca = makeOpensslCa('Newsroom');
    stranger = makeOpensslCa('Stranger');
    api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    jane = await registerAccount(api.app, 'Daily Planet');
    await request(api.app).post('/org/trust-anchors').set(bearer(jane.access)).send({ pem: ca.rootPem, label: 'Newsroom CA' }).expect(201);
    // Nothing delivers here: what is recorded for the organisation's webhooks is what is checked.
    await request(api.app).post('/org/webhooks').set(bearer(jane.access)).send({ url: 'http://127.0.0.1:9/hooks', events: ['signing_certificate.rotated', 'signing_certificate.revoked'] }).expect(201);
  });
  after(async () => {
    await clearSignQueue(api.config);
    await tsa?.close();
    await api?.close();
    ca?.cleanup();
    stranger?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const postChain = (acc: Pick<Account, 'access'>, id: string, chainPem: string) => request(api.app).post(`${REQUESTS}/${id}/chain`).set(bearer(acc.access)).send({ chain_pem: chainPem });

  it('needs a name (409 name_required), then answers 201 with a CSR for a new key of the person, which OpenSSL verifies: CN, O, e-mail SAN, EKU emailProtection', async () => {
    const unnamed = await request(api.app).post(REQUESTS).set(bearer(jane.access)).expect(409);
    expect(unnamed.body.error.code).to.equal('name_required');
    await request(api.app).patch('/auth/me').set(bearer(jane.access)).send({ name: 'Jane Doe' }).expect(200);
    const key = (await request(api.app).post('/org/api-keys').set(bearer(jane.access)).send({ name: 'cms' }).expect(201)).body.key;
    await request(api.app).post(REQUESTS).set({ 'X-API-Key': key }).expect(403);

    const created = await request(api.app).post(REQUESTS).set(bearer(jane.access));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ status: 'pending', certificate: null });
    requestId = created.body.request_id;
    csrPem = created.body.csr_pem;
    writeFileSync(path.join(dir, 'req.csr'), csrPem);
    const checked = await openssl(['req', '-verify', '-in', 'req.csr', '-noout', '-text'], dir);
    expect(checked.code, checked.output).to.equal(0);
    expect(checked.output).to.match(/verify OK/);
    expect(checked.stdout).to.match(/Subject: (C = \w\w, )?O = Daily Planet, CN = Jane Doe\n/);
    expect(checked.stdout).to.match(/X509v3 Extended Key Usage: \s+E-mail Protection\n/);
    expect(checked.stdout).to.match(new RegExp(`X509v3 Subject Alternative Name: \\s+email:${jane.email.replace(/[.+]/g, '\\$&')}\\n`));
    expect(checked.stdout).to.match(/X509v3 Key Usage: critical\s+Digital Signature\n/);
    const row = await api.db.knex('external_certificate_requests').where({ id: requestId }).first('key_name', 'purpose', 'user_id');
    expect(row).to.deep.equal({ key_name: `org-${jane.orgId}-person-${jane.userId}-ext-${requestId}`, purpose: 'identity', user_id: jane.userId });
    const listed = await request(api.app).get(REQUESTS).set(bearer(jane.access)).expect(200);
    expect(listed.body.requests.map((r: { request_id: string }) => r.request_id)).to.deep.equal([requestId]);
  });

  it("is the person's own: not among the organisation's signing certificate requests, not seen or used by a colleague", async () => {
    const orgRequests = await request(api.app).get('/org/signing-certificate/requests').set(bearer(jane.access)).expect(200);
    expect(orgRequests.body.requests).to.deep.equal([]);
    await request(api.app).post(`/org/signing-certificate/requests/${requestId}/chain`).set(bearer(jane.access)).send({ chain_pem: ca.issue(csrPem) + ca.intermediatePem }).expect(404);
    const colleague = await addOrgUser(api.app, jane, 'admin');
    expect((await request(api.app).get(REQUESTS).set(bearer(colleague.access)).expect(200)).body.requests).to.deep.equal([]);
    await request(api.app).get(`${REQUESTS}/${requestId}`).set(bearer(colleague.access)).expect(404);
    expect((await postChain(colleague, requestId, ca.issue(csrPem) + ca.intermediatePem)).status).to.equal(404);
  });

  it('refuses a chain from a CA no anchor of the organisation vouches for, one without emailProtection and one naming someone else, each with its code', async () => {
    const cases: [string, string, RegExp][] = [
      ['chain_untrusted', stranger.issue(csrPem) + stranger.intermediatePem, /CAWG trust anchor/],
      ['chain_profile', ca.issue(csrPem, { ownExtensions: ['keyUsage = critical,digitalSignature', 'extendedKeyUsage = codeSigning', `subjectAltName = email:${jane.email}`] }) + ca.intermediatePem, /CAWG X\.509 identity profile/],
      ['chain_profile', ca.issue(csrPem, { ownExtensions: ['keyUsage = critical,digitalSignature', 'extendedKeyUsage = emailProtection', 'subjectAltName = email:someone@else.example'] }) + ca.intermediatePem, /does not name/],
      ['chain_invalid', 'not a certificate', /no CERTIFICATE/],
    ];
    for (const [code, chainPem, message] of cases) {
      const res = await postChain(jane, requestId, chainPem);
      expect(res.status, `${code}: ${JSON.stringify(res.body)}`).to.equal(422);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.message).to.match(message);
    }
    expect((await request(api.app).get(`${REQUESTS}/${requestId}`).set(bearer(jane.access)).expect(200)).body.status).to.equal('pending');
    // Still nothing to sign as.
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(jane.access)).expect(200)).body.current).to.equal(null);
  });

  it('accepts the chain the CA issued; a file signed as the person names them, trusted through the organisation anchor; the organisation still signs with the service CA', async () => {
    const accepted = await postChain(jane, requestId, ca.issue(csrPem) + ca.intermediatePem + ca.rootPem);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body.certificate.issuer).to.equal('CN=Newsroom Issuing CA,O=Newsroom CA,C=GB');
    const mine = (await request(api.app).get('/auth/me/identity-certificate').set(bearer(jane.access)).expect(200)).body;
    expect(mine.current).to.include({ serial: accepted.body.certificate.serial, email: jane.email, issued_by: 'external CA: CN=Newsroom Issuing CA,O=Newsroom CA,C=GB', status: 'valid' });
    expect((await request(api.app).get('/org/signing-certificate').set(bearer(jane.access)).expect(200)).body.current.source).to.equal('service_ca');

    const up = await request(api.app).post('/v1/media/upload').set(bearer(jane.access)).attach('file', JPEG, 'small.jpg').expect(201);
    const sign = await request(api.app).post('/v1/media/sign').set(bearer(jane.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Byline', creator: 'Jane Doe' }, identity: { roles: ['cawg.creator'] } });
    expect(sign.status, JSON.stringify(sign.body)).to.equal(202);
    const worker = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault: createKeyVault(api.config), events: new LocalJobEvents(), logger: createLogger('silent', 'worker') }), timestamper: httpTimestamper({ url: `http://127.0.0.1:${tsa.port}` }) };
    await processSignJob(worker, sign.body.job_id, { number: 1, final: true });
    const job = (await request(api.app).get(`/v1/media/jobs/${sign.body.job_id}`).set(bearer(jane.access)).expect(200)).body;
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    const file = await api.db.knex('signed_files').where({ job_id: sign.body.job_id }).first('identity_certificate_serial');
    expect(file.identity_certificate_serial).to.equal(accepted.body.certificate.serial);
    const bytes = await downloadFile(api.app, jane, job.signed_file.download_url);

    const rootPem = derToPem(pki.root.der);
    const report = await readAsset(bytes, 'image/jpeg', { lists: [{ kind: 'manifest', anchorsPem: [rootPem] }, { kind: 'tsa', anchorsPem: [rootPem] }, { kind: 'cawg', anchorsPem: [ca.rootPem] }] });
    expect(report.status.failure).to.deep.equal([]);
    expect(report.status.success).to.include.members(['cawg.identity.well-formed', 'cawg.x509.signature.validated', 'cawg.x509.credential.trusted']);

    // Signed in: the organisation's anchors are CAWG anchors too, and the one that vouches is named.
    const verified = (await request(api.app).post('/v1/media/verify').set(bearer(jane.access)).attach('file', bytes, 'byline.jpg').expect(200)).body;
    expect(verified.validation_state).to.equal('Trusted');
    expect(verified.identities).to.have.length(1);
    expect(verified.identities[0]).to.deep.include({ name: 'Jane Doe', organisation: 'Daily Planet', email: jane.email, verdict: 'trusted', trust_source: 'organisation_anchor', issuer: 'CN=Newsroom Issuing CA,O=Newsroom CA,C=GB' });
    expect(verified.identities[0].roles).to.deep.equal(['cawg.creator']);
    // The public verification holds no organisation's anchors: the person is named, but not vouched for.
    const published = (await request(api.app).post('/v1/verify').attach('file', bytes, 'byline.jpg').expect(200)).body;
    expect(published.identities[0]).to.deep.include({ name: 'Jane Doe', verdict: 'untrusted', trust_source: null });
  });

  it('a newer certificate from either CA takes over; once the CA\'s revocation is recorded, signing as the person is refused, never falling back to an older one', async () => {
    const issued = (await request(api.app).post('/auth/me/identity-certificate').set(bearer(jane.access)).expect(201)).body;
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(jane.access)).expect(200)).body.current.serial).to.equal(issued.serial);
    // A second external one takes over again, until its CA's revocation is recorded.
    const second = (await request(api.app).post(REQUESTS).set(bearer(jane.access)).expect(201)).body;
    const accepted = await postChain(jane, second.request_id, ca.issue(second.csr_pem) + ca.intermediatePem);
    expect(accepted.status).to.equal(200);
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(jane.access)).expect(200)).body.current.serial).to.equal(accepted.body.certificate.serial);
    const revoked = await request(api.app).post(`${REQUESTS}/${second.request_id}/revoked`).set(bearer(jane.access)).send({ reason: 'keyCompromise' });
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expect(revoked.body.certificate.revocation_reason).to.equal('keyCompromise');
    expect((await request(api.app).get('/auth/me/identity-certificate').set(bearer(jane.access)).expect(200)).body.current).to.equal(null);
    // Not the organisation's signing certificate: no signing_certificate event.
    const events = await api.db.knex('webhook_events').where({ org_id: jane.orgId }).whereLike('type', 'signing_certificate.%').count('* as n').first();
    expect(Number(events?.n)).to.equal(0);
    const up = await request(api.app).post('/v1/media/upload').set(bearer(jane.access)).attach('file', JPEG, 'small.jpg').expect(201);
    const refused = await request(api.app).post('/v1/media/sign').set(bearer(jane.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Byline', creator: 'Jane Doe' }, identity: { roles: ['cawg.creator'] } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.error).to.include({ code: 'identity_certificate_missing' });
    expect(refused.body.error.message).to.match(/external CA .* revoked/);
  });
});
