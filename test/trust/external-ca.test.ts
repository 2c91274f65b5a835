/**
 * An organisation signs with a certificate from an external CA (OpenSSL's `openssl ca` plays it, its root in
 * TRUST_ANCHORS_FILE): the service makes a key in the vault and a CSR that OpenSSL verifies, the CA issues from
 * it, the chain is checked and accepted, and a file signed afterwards reads Trusted with c2pa-rs given only that
 * CA's root. Chains that fail a check are refused with the check's code; another organisation sees and uses none of
 * it; a revocation recorded by an admin stops signing at once. signing_certificate.expiring covers the external
 * certificate an organisation signs with, once, and none it rotated away from or was told is revoked.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { recordExpiryNotices } from '../../shared/pki/expiry-notices.js';
import { loadOrgSigningIdentity } from '../../shared/pki/org-signing-identity.js';
import { NoSigningCertificateError } from '../../shared/pki/signing-identity.js';
import { RedisJobEvents } from '../../shared/queue/job-events.js';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { addOrgUser, bearer, downloadFile, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';
import { openssl } from './support.js';

const photo = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));
const SUBJECT = { CN: 'Daily Planet Signing', O: 'Daily Planet Ltd', C: 'gb', OU: 'Newsroom', L: 'Metropolis', ST: 'Greater London' };

describe('trust: an organisation signs with a certificate from an external CA', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'external-ca-'));
  let ca: OpensslCa;
  let stranger: OpensslCa;
  let api: TestApi;
  let events: RedisJobEvents;
  let worker: SignJobDeps;
  let planet: Account;
  let bugle: Account;
  let requestId: string;
  let csrPem: string;

  before(async () => {
    ca = makeOpensslCa('Outside');
    stranger = makeOpensslCa('Stranger');
    const anchors = path.join(dir, 'anchors.pem');
    writeFileSync(anchors, ca.rootPem);
    api = await startTestApi({ TRUST_ANCHORS_FILE: anchors, WEBHOOK_ALLOW_PRIVATE: 'true' });
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    events = new RedisJobEvents(api.config.redisUrl, api.config.queuePrefix, { listen: false });
    // The worker's own code path. Timestamps are another test's (test/tsa/external-tsa.test.ts): here only the
    // signer's trust is judged.
    worker = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault: createKeyVault(api.config), events, logger: createLogger('silent', 'worker') }), timestamper: undefined };
    planet = await registerAccount(api.app, 'Daily Planet');
    bugle = await registerAccount(api.app, 'The Daily Bugle');
    // Nothing delivers here (no worker): the events recorded with each change are what is checked.
    await request(api.app).post('/org/webhooks').set(bearer(planet.access)).send({ url: 'http://127.0.0.1:9/hooks', events: ['signing_certificate.rotated', 'signing_certificate.revoked'] }).expect(201);
  });

  async function certificateEvents(type: string) {
    const rows = (await api.db.knex('webhook_events').where({ org_id: planet.orgId, type }).select('body')) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as { type: string; data: { request_id: string; certificate: { serial: string; revoked_at: string | null } | null } });
  }
  after(async () => {
    const queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: api.config.redisUrl }, prefix: api.config.queuePrefix });
    await queue.obliterate({ force: true });
    await queue.close();
    await events?.close();
    await api?.close();
    ca?.cleanup();
    stranger?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signJpeg(acc: Account) {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', photo, 'photo.jpg').expect(201);
    const res = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Harbour', creator: 'Desk' } });
    if (res.status !== 202) return res;
    await processSignJob(worker, res.body.job_id, { number: 1, final: true });
    return request(api.app).get(`/v1/media/jobs/${res.body.job_id}`).set(bearer(acc.access)).expect(200);
  }

  const postChain = (acc: Account, id: string, chainPem: string) =>
    request(api.app).post(`/org/signing-certificate/requests/${id}/chain`).set(bearer(acc.access)).send({ chain_pem: chainPem });

  async function newRequest(acc: Account, subject: Record<string, string> = SUBJECT) {
    const res = await request(api.app).post('/org/signing-certificate/requests').set(bearer(acc.access)).send(subject);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { request_id: string; csr_pem: string };
  }

  it('answers 201 with a CSR signed by a new vault key that OpenSSL verifies, carrying the subject and the C2PA claim-signer extensions', async () => {
    const viewer = await addOrgUser(api.app, planet, 'viewer');
    await request(api.app).post('/org/signing-certificate/requests').set(bearer(viewer.access)).send(SUBJECT).expect(403);
    const bad = await request(api.app).post('/org/signing-certificate/requests').set(bearer(planet.access)).send({ ...SUBJECT, C: 'GBR' }).expect(400);
    expect(bad.body.error.message).to.match(/^C/);
    await request(api.app).post('/org/signing-certificate/requests').set(bearer(planet.access)).send({ CN: 'x', O: 'y', C: 'GB', serial: '1' }).expect(400);

    const created = await newRequest(planet);
    requestId = created.request_id;
    csrPem = created.csr_pem;
    writeFileSync(path.join(dir, 'req.csr'), csrPem);
    const checked = await openssl(['req', '-verify', '-in', 'req.csr', '-noout', '-text'], dir);
    expect(checked.code, checked.output).to.equal(0);
    expect(checked.stdout + checked.stderr).to.match(/verify OK/);
    expect(checked.stdout).to.include('Subject: C = GB, ST = Greater London, L = Metropolis, O = Daily Planet Ltd, OU = Newsroom, CN = Daily Planet Signing');
    expect(checked.stdout).to.match(/X509v3 Key Usage: critical\s+Digital Signature\n/);
    expect(checked.stdout).to.match(/X509v3 Extended Key Usage: \s+1\.3\.6\.1\.5\.5\.7\.3\.36, E-mail Protection/);
    expect(checked.stdout).to.include('ASN1 OID: secp384r1');
    // The key is a new one in the vault, named for the organisation and the request.
    const row = await api.db.knex('external_certificate_requests').where({ id: requestId }).first('key_name', 'status');
    expect(row).to.deep.equal({ key_name: `org-${planet.orgId}-ext-${requestId}`, status: 'pending' });
    const listed = await request(api.app).get('/org/signing-certificate/requests').set(bearer(planet.access)).expect(200);
    expect(listed.body.requests.map((r: { request_id: string }) => r.request_id)).to.deep.equal([requestId]);
    expect(listed.body.requests[0]).to.include({ status: 'pending', csr_pem: csrPem, certificate: null });
  });

  it('refuses a chain for another key, an expired one, one without an allowed EKU and one from an untrusted root, each with its code', async () => {
    const other = await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', 'other.key', '-subj', '/CN=Someone Else', '-out', 'other.csr'], dir);
    expect(other.code, other.output).to.equal(0);
    const cases: [string, string, RegExp][] = [
      ['chain_key_mismatch', ca.issue(readFileSync(path.join(dir, 'other.csr'), 'utf8')) + ca.intermediatePem, /key/],
      ['chain_expired', ca.issue(csrPem, { startdate: '20200101000000Z', enddate: '20200201000000Z' }) + ca.intermediatePem, /not valid now/],
      ['chain_profile', ca.issue(csrPem, { ownExtensions: ['keyUsage = critical,digitalSignature', 'extendedKeyUsage = serverAuth'] }) + ca.intermediatePem, /extendedKeyUsage has none/],
      ['chain_untrusted', stranger.issue(csrPem) + stranger.intermediatePem, /trust anchor/],
      ['chain_untrusted', ca.issue(csrPem), /trust anchor/], // the intermediate left out: it cannot be built
      ['chain_invalid', 'not a certificate', /no CERTIFICATE/],
    ];
    for (const [code, chainPem, message] of cases) {
      const res = await postChain(planet, requestId, chainPem);
      expect(res.status, `${code}: ${JSON.stringify(res.body)}`).to.equal(422);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.message).to.match(message);
    }
    // Nothing was stored: the request still waits, and the organisation still signs with the service CA.
    expect((await request(api.app).get(`/org/signing-certificate/requests/${requestId}`).set(bearer(planet.access)).expect(200)).body.status).to.equal('pending');
    expect((await request(api.app).get('/org/signing-certificate').set(bearer(planet.access)).expect(200)).body.current.source).to.equal('service_ca');
  });

  it("another organisation can neither see nor use the request", async () => {
    const listed = await request(api.app).get('/org/signing-certificate/requests').set(bearer(bugle.access)).expect(200);
    expect(listed.body.requests).to.deep.equal([]);
    await request(api.app).get(`/org/signing-certificate/requests/${requestId}`).set(bearer(bugle.access)).expect(404);
    const chain = ca.issue(csrPem) + ca.intermediatePem;
    expect((await postChain(bugle, requestId, chain)).status).to.equal(404);
    await request(api.app).post(`/org/signing-certificate/requests/${requestId}/revoked`).set(bearer(bugle.access)).send({ reason: 'keyCompromise' }).expect(404);
    expect((await api.db.knex('external_certificate_requests').where({ id: requestId }).first('status')).status).to.equal('pending');
  });

  it('accepts the chain the CA issued; files signed afterwards read Trusted with only that CA root, with the subject asked for', async () => {
    const leafPem = ca.issue(csrPem, { days: 20 });
    // The root sent along is dropped: a validator holds it, the file carries leaf and intermediate.
    const accepted = await postChain(planet, requestId, leafPem + ca.intermediatePem + ca.rootPem);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body.status).to.equal('accepted');
    expect(accepted.body.certificate.issuer).to.equal('CN=Outside Issuing CA,O=Outside CA,C=GB');
    expect((await postChain(planet, requestId, leafPem + ca.intermediatePem)).status).to.equal(409);
    // Recorded with the acceptance, for the organisation's webhooks: the certificate that now signs.
    const rotated = await certificateEvents('signing_certificate.rotated');
    expect(rotated.map((e) => [e.data.request_id, e.data.certificate?.serial])).to.deep.equal([[requestId, accepted.body.certificate.serial]]);

    const status = (await request(api.app).get('/org/signing-certificate').set(bearer(planet.access)).expect(200)).body;
    expect(status.status).to.equal('valid');
    expect(status.current).to.include({ source: 'external_ca', issued_by: 'external CA: CN=Outside Issuing CA,O=Outside CA,C=GB', root: null });
    expect(status.current.chain).to.have.length(2);
    expect(status.current.expires_in_days).to.be.within(18, 20);
    expect(status.current.expiry_warning).to.match(/expires on/);
    // History: the external certificate first, the service CA's before it.
    expect(status.certificates.map((c: { source: string }) => c.source)).to.deep.equal(['external_ca', 'service_ca']);
    expect(status.certificates[1].issued_by).to.equal('service CA, for private deployments');
    // Another organisation still signs with the service CA.
    expect((await request(api.app).get('/org/signing-certificate').set(bearer(bugle.access)).expect(200)).body.current.source).to.equal('service_ca');

    const job = await signJpeg(planet);
    expect(job.body.status, JSON.stringify(job.body)).to.equal('signed');
    expect(job.body.signed_file.certificate_serial).to.equal(accepted.body.certificate.serial);
    const signed = await downloadFile(api.app, planet, job.body.signed_file.download_url);
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: ca.rootPem });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.signer?.subject).to.include('Daily Planet Signing').and.to.include('Daily Planet Ltd');
    expect(report.signer?.issuer).to.include('Outside Issuing CA');
    // The service's verification: trusted through the operator's anchor; its own revocation data does not speak for it.
    const verified = await request(api.app).post('/v1/media/verify').set(bearer(planet.access)).attach('file', signed, 'p.jpg').expect(200);
    expect(verified.body.validation_state).to.equal('Trusted');
    expect(verified.body.signer.trust_source).to.equal('operator_anchor');
    expect(verified.body.revocation.status).to.equal('not_issued_by_service');
    // The service root alone does not make it trusted: it is the external CA's certificate.
    const serviceRoot = (await request(api.app).get('/org/signing-certificate').set(bearer(bugle.access)).expect(200)).body.current.root.pem;
    expect((await readAsset(signed, 'image/jpeg', { trustAnchorsPem: serviceRoot })).validation_state).to.equal('Valid');
  });

  it("a revocation recorded by an admin stops signing at once; rotating to the service CA signs again, and the history keeps both", async () => {
    const viewer = await addOrgUser(api.app, planet, 'viewer');
    await request(api.app).post(`/org/signing-certificate/requests/${requestId}/revoked`).set(bearer(viewer.access)).send({ reason: 'keyCompromise' }).expect(403);
    await request(api.app).post(`/org/signing-certificate/requests/${requestId}/revoked`).set(bearer(planet.access)).send({ reason: 'nonsense' }).expect(400);
    const revoked = await request(api.app).post(`/org/signing-certificate/requests/${requestId}/revoked`).set(bearer(planet.access)).send({ reason: 'keyCompromise', revoked_at: '2026-01-02T03:04:05Z' });
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expect(revoked.body.certificate).to.include({ revoked_at: '2026-01-02T03:04:05.000Z', revocation_reason: 'keyCompromise' });
    await request(api.app).post(`/org/signing-certificate/requests/${requestId}/revoked`).set(bearer(planet.access)).send({ reason: 'keyCompromise' }).expect(409);
    const revokedEvents = await certificateEvents('signing_certificate.revoked');
    expect(revokedEvents.map((e) => [e.data.request_id, e.data.certificate?.revoked_at])).to.deep.equal([[requestId, '2026-01-02T03:04:05.000Z']]);

    const refused = await signJpeg(planet);
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('no_signing_certificate');
    expect(refused.body.error.message).to.match(/revoked by its CA/);
    // A job already queued fails the same way in the worker: no fallback to another certificate.
    try {
      await loadOrgSigningIdentity({ knex: api.db.knex, vault: createKeyVault(api.config) }, planet.orgId, 0);
      expect.fail('expected the refusal');
    } catch (err) {
      expect(err).to.be.instanceOf(NoSigningCertificateError);
    }
    const status = (await request(api.app).get('/org/signing-certificate').set(bearer(planet.access)).expect(200)).body;
    expect(status).to.include({ status: 'revoked', current: null });
    expect(status.certificates[0]).to.include({ source: 'external_ca', status: 'revoked', revocation_reason: 'keyCompromise' });

    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(planet.access)).expect(201);
    const again = await signJpeg(planet);
    expect(again.body.status, JSON.stringify(again.body)).to.equal('signed');
    expect(again.body.signed_file.certificate_subject).to.equal('CN=Daily Planet,O=Daily Planet');
    const history = (await request(api.app).get('/org/signing-certificate').set(bearer(planet.access)).expect(200)).body.certificates;
    expect(history.map((c: { source: string }) => c.source)).to.deep.equal(['service_ca', 'external_ca', 'service_ca']);
  });
  it('signing_certificate.expiring: once for the external certificate an organisation signs with, none for a revoked or superseded one, none for a service CA leaf it no longer signs with', async () => {
    const expiringEvents = async () => {
      const rows = (await api.db.knex('webhook_events').where({ type: 'signing_certificate.expiring' }).orderBy('created_at').select('org_id', 'body')) as { org_id: string; body: string }[];
      return rows.map((r) => ({ orgId: r.org_id, data: (JSON.parse(r.body) as { data: Record<string, unknown> }).data }));
    };
    const otherEvents = async () => (await api.db.knex('webhook_events').whereNot({ type: 'signing_certificate.expiring' }).orderBy('id').select('id', 'org_id', 'body')) as unknown[];
    const listen = (acc: Account) => request(api.app).post('/org/webhooks').set(bearer(acc.access)).send({ url: 'http://127.0.0.1:9/expiring', events: ['signing_certificate.expiring'] }).expect(201);
    /** A new organisation (its service CA leaf issued at registration) and `days`-long external certificates accepted in turn. */
    const organisation = async (name: string, ...days: number[]) => {
      const acc = await registerAccount(api.app, name);
      expect((await request(api.app).get('/org/signing-certificate').set(bearer(acc.access)).expect(200)).body.current.source).to.equal('service_ca');
      await listen(acc);
      const requests: { id: string; serial: string }[] = [];
      for (const d of days) {
        const req = await newRequest(acc, { CN: `${name} Signing`, O: name, C: 'GB' });
        const accepted = await postChain(acc, req.request_id, ca.issue(req.csr_pem, { days: d }) + ca.intermediatePem);
        expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
        requests.push({ id: req.request_id, serial: accepted.body.certificate.serial as string });
      }
      return { acc, requests };
    };
    // Signs with a 10-day external certificate: the one notice.
    const gazette = await organisation('Gazette', 10);
    // Its 10-day certificate recorded as revoked by the CA.
    const sentinel = await organisation('Sentinel', 10);
    await request(api.app).post(`/org/signing-certificate/requests/${sentinel.requests[0]!.id}/revoked`).set(bearer(sentinel.acc.access)).send({ reason: 'keyCompromise' }).expect(200);
    // Rotated back to the service CA after a 10-day external certificate.
    const herald = await organisation('Herald', 10);
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(herald.acc.access)).expect(201);
    // A 10-day external certificate replaced by a 90-day one.
    const courier = await organisation('Courier', 10, 90);
    // Planet (back on the service CA since the revocation) and Bugle (always on it) listen too.
    await Promise.all([listen(planet), listen(bugle)]);
    const others = await otherEvents();

    // Two scheduler passes with the configured window (30 days): one event, for Gazette's certificate, as its request shows it.
    const days = api.config.webhooks.certificateExpiringDays;
    expect(days).to.equal(30);
    expect(await recordExpiryNotices(api.db.knex, days)).to.equal(1);
    expect(await recordExpiryNotices(api.db.knex, days)).to.equal(0);
    const shown = (await request(api.app).get(`/org/signing-certificate/requests/${gazette.requests[0]!.id}`).set(bearer(gazette.acc.access)).expect(200)).body;
    expect(await expiringEvents()).to.deep.equal([{ orgId: gazette.acc.orgId, data: shown }]);
    expect(shown.certificate.serial).to.equal(gazette.requests[0]!.serial);

    // A window past every certificate's end: each organisation's certificate in force, once (Gazette's already was); a
    // service CA leaf is only one for the organisations that sign with it.
    expect(await recordExpiryNotices(api.db.knex, 400)).to.equal(4);
    expect(await recordExpiryNotices(api.db.knex, 400)).to.equal(0);
    const leafSerial = async (acc: Account) => (await request(api.app).get('/org/signing-certificate').set(bearer(acc.access)).expect(200)).body.current.serial as string;
    const recorded = (await expiringEvents()).map((e) => [e.orgId, (e.data.request_id as string | undefined) ?? null, (e.data.certificate as { serial?: string } | undefined)?.serial ?? e.data.serial]);
    expect(recorded).to.have.deep.members([
      [gazette.acc.orgId, gazette.requests[0]!.id, gazette.requests[0]!.serial],
      [courier.acc.orgId, courier.requests[1]!.id, courier.requests[1]!.serial],
      [planet.orgId, null, await leafSerial(planet)],
      [bugle.orgId, null, await leafSerial(bugle)],
      [herald.acc.orgId, null, await leafSerial(herald.acc)],
    ]);
    // The other events (certificates accepted, revoked, rotated) are as they were.
    expect(await otherEvents()).to.deep.equal(others);
  });
});
