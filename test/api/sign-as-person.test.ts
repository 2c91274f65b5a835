/**
 * Signing as a person: POST /v1/media/sign with `identity` adds a CAWG identity assertion signed with the user's
 * identity certificate's key, beside the organisation's unchanged claim signature. Checked by c2pa-rs (with the
 * identity CA as a CAWG anchor) and the conformance rubrics; the refusals; a departure leaves earlier files Trusted.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { trustSettings, type ReadOptions } from '../../shared/c2pa/settings.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps } from '../../workers/sign-job/deps.js';
import { loadRubric, unmet } from '../support/asset-rubric.js';
import { until } from '../support/until.js';
import { addOrgUser, bearer, clearSignQueue, downloadFile, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const JPEG = readFileSync(new URL('../fixtures/small.jpg', import.meta.url));
const rubric = (name: string) => loadRubric(new URL(`../fixtures/asset-rubrics/${name}`, import.meta.url).pathname);

describe('signing as a person (CAWG identity assertion)', function () {
  this.timeout(90_000);
  let api: TestApi;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let a: Account;
  let b: Account;
  let rootPem: string;

  before(async () => {
    api = await startTestApi();
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    rootPem = derToPem(pki.root.der);
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    a = await registerAccount(api.app, 'Daily Planet');
    b = await registerAccount(api.app, 'Daily Bugle');
    await request(api.app).patch('/auth/me').set(bearer(a.access)).send({ name: 'Jane Doe' }).expect(200);
    await request(api.app).post('/auth/me/identity-certificate').set(bearer(a.access)).expect(201);
  });
  after(async () => {
    await clearSignQueue(api.config);
    await tsa?.close();
    await api?.close();
  });

  const upload = async (auth: Record<string, string>) => (await request(api.app).post('/v1/media/upload').set(auth).attach('file', JPEG, 'small.jpg').expect(201)).body.upload_id as string;
  const signRequest = async (auth: Record<string, string>, identity: unknown) =>
    request(api.app).post('/v1/media/sign').set(auth).send({ upload_id: await upload(auth), manifest: { title: 'Byline', creator: 'Jane Doe' }, identity });

  /** Runs the job as the worker does and downloads the signed file. */
  async function signed(auth: Record<string, string>, jobId: string): Promise<{ bytes: Buffer; view: Record<string, any> }> {
    const deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault: createKeyVault(api.config), events: new LocalJobEvents(), logger: createLogger('silent', 'worker') }), timestamper: httpTimestamper({ url: `http://127.0.0.1:${tsa.port}` }) };
    await processSignJob(deps, jobId, { number: 1, final: true });
    const view = (await request(api.app).get(`/v1/media/jobs/${jobId}`).set(auth).expect(200)).body;
    expect(view.status, JSON.stringify(view)).to.equal('signed');
    return { bytes: await downloadFile(api.app, { access: (auth.Authorization ?? '').replace('Bearer ', '') || a.access }, view.signed_file.download_url), view };
  }

  const withCawgAnchor: () => ReadOptions = () => ({ lists: [{ kind: 'manifest', anchorsPem: [rootPem] }, { kind: 'tsa', anchorsPem: [rootPem] }, { kind: 'cawg', anchorsPem: [rootPem] }] });
  let janeFile: Buffer;

  it("a user's file carries the identity: c2pa-rs reads it well-formed, validated and, with the identity CA as a CAWG anchor, trusted; the claim signature is the organisation's", async () => {
    const res = await signRequest(bearer(a.access), { roles: ['cawg.creator'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const { bytes, view } = await signed(bearer(a.access), res.body.job_id);
    janeFile = bytes;
    const report = await readAsset(bytes, 'image/jpeg', withCawgAnchor());
    expect(report.status.failure).to.deep.equal([]);
    expect(report.status.success).to.include.members(['cawg.identity.well-formed', 'cawg.x509.signature.validated', 'cawg.x509.credential.trusted', 'signingCredential.trusted', 'timeStamp.trusted']);
    expect(report.validation_state).to.equal('Trusted');
    expect(view.signed_file.certificate_subject).to.include('Daily Planet');
    const file = await api.db.knex('signed_files').where({ job_id: res.body.job_id }).first('identity_certificate_serial', 'certificate_serial');
    expect(file.identity_certificate_serial).to.be.a('string').and.not.equal(file.certificate_serial);
  });

  it('the conformance rubrics stay clean for it', async () => {
    const reader = await c2paWasm().WasmReader.fromBytes('image/jpeg', janeFile, trustSettings(withCawgAnchor()));
    const crJson = JSON.parse(reader.crJson());
    reader.free();
    expect(unmet(rubric('asset-rubric-integrity.yml').evaluate(crJson))).to.deep.equal([]);
    expect(unmet(rubric('asset-rubric-conformance0.2-spec2.4.yml').evaluate(crJson))).to.deep.equal([]);
  });

  it('verify names the person: name, e-mail, organisation, roles, issuer, verdict trusted with the cawg codes, trust source service_ca', async () => {
    for (const res of [
      await request(api.app).post('/v1/media/verify').set(bearer(a.access)).attach('file', janeFile, 'byline.jpg').expect(200),
      await request(api.app).post('/v1/verify').attach('file', janeFile, 'byline.jpg').expect(200),
    ]) {
      expect(res.body.validation_state).to.equal('Trusted');
      expect(res.body.identities).to.have.length(1);
      const [jane] = res.body.identities;
      expect(jane).to.deep.include({ label: 'cawg.identity', sig_type: 'cawg.x509.cose', name: 'Jane Doe', organisation: 'Daily Planet', email: a.email, verdict: 'trusted', trust_source: 'service_ca' });
      expect(jane.roles).to.deep.equal(['cawg.creator']);
      expect(jane.issuer).to.include('Issuing CA');
      expect(jane.codes.success).to.include.members(['cawg.identity.well-formed', 'cawg.x509.signature.validated', 'cawg.x509.credential.trusted']);
      expect(jane.codes.failure).to.deep.equal([]);
    }
    // A file signed by the organisation alone names no one.
    const plain = await signRequest(bearer(b.access), undefined);
    const { bytes } = await signed(bearer(b.access), plain.body.job_id);
    expect((await request(api.app).post('/v1/media/verify').set(bearer(b.access)).attach('file', bytes, 'plain.jpg').expect(200)).body.identities).to.deep.equal([]);
  });

  it('roles outside the CAWG vocabulary are 400; an API key of no person is 422 no_identity; a user without a certificate 409', async () => {
    for (const identity of [{ roles: ['author'] }, { roles: ['cawg.creator', 'cawg.creator'] }, { roles: 'cawg.creator' }, { roles: [], extra: 1 }]) {
      const res = await signRequest(bearer(a.access), identity);
      expect(res.status, JSON.stringify(identity)).to.equal(400);
    }
    const key = (await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'cms' }).expect(201)).body.key;
    const keyed = await signRequest({ 'X-API-Key': key }, { roles: ['cawg.publisher'] });
    expect(keyed.status).to.equal(422);
    expect(keyed.body.error.code).to.equal('no_identity');
    const signer = await addOrgUser(api.app, a, 'signer');
    const missing = await signRequest(bearer(signer.access), { roles: [] });
    expect(missing.status).to.equal(409);
    expect(missing.body.error.code).to.equal('identity_certificate_missing');
    // Without identity the same requests sign as the organisation.
    expect((await signRequest({ 'X-API-Key': key }, undefined)).status).to.equal(202);
  });

  it("an admin binds a key to a user of the organisation (not another's): it signs as that person", async () => {
    expect((await request(api.app).post('/org/api-keys').set(bearer(b.access)).send({ name: 'steal', user_id: a.userId })).status).to.equal(404);
    const created = (await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'jane-cms', user_id: a.userId }).expect(201)).body;
    expect(created.user_id).to.equal(a.userId);
    const res = await signRequest({ 'X-API-Key': created.key }, { roles: ['cawg.editor'] });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const { bytes } = await signed({ 'X-API-Key': created.key }, res.body.job_id);
    const report = await readAsset(bytes, 'image/jpeg', withCawgAnchor());
    expect(report.status.success).to.include('cawg.x509.credential.trusted');
  });

  let templateId: string;
  const withTemplate = async (auth: Record<string, string>, extra: Record<string, unknown> = {}) =>
    request(api.app).post('/v1/media/sign').set(auth).send({ upload_id: await upload(auth), manifest: { title: 'Desk photo' }, template_id: templateId, ...extra });

  // A template's identity setting.
  it('a template keeps its identity setting, checked as the request\'s is (roles from the CAWG vocabulary)', async () => {
    for (const identity of [{ roles: ['author'] }, { roles: 'cawg.creator' }, { roles: [], extra: 1 }]) {
      const res = await request(api.app).post('/v1/manifest-templates').set(bearer(a.access)).send({ name: 'Bad identity', manifest: { creator: 'Jane Doe' }, identity });
      expect(res.status, JSON.stringify(identity)).to.equal(400);
    }
    const created = (await request(api.app).post('/v1/manifest-templates').set(bearer(a.access)).send({ name: 'Bylines', manifest: { creator: 'Jane Doe' }, identity: { roles: ['cawg.publisher'] } }).expect(201)).body;
    expect(created.identity).to.deep.equal({ roles: ['cawg.publisher'] });
    templateId = created.template_id;
    expect((await request(api.app).get(`/v1/manifest-templates/${templateId}`).set(bearer(a.access)).expect(200)).body.identity).to.deep.equal({ roles: ['cawg.publisher'] });
    const plain = (await request(api.app).post('/v1/manifest-templates').set(bearer(a.access)).send({ name: 'Plain', manifest: { creator: 'Desk' } }).expect(201)).body;
    expect(plain.identity).to.equal(null);
  });

  it('a template\'s identity signs as the person when the request gives none; the request\'s own replaces it', async () => {
    const fromTemplate = await withTemplate(bearer(a.access));
    expect(fromTemplate.status, JSON.stringify(fromTemplate.body)).to.equal(202);
    const { bytes } = await signed(bearer(a.access), fromTemplate.body.job_id);
    const verified = (await request(api.app).post('/v1/media/verify').set(bearer(a.access)).attach('file', bytes, 'desk.jpg').expect(200)).body;
    expect(verified.identities).to.have.length(1);
    expect(verified.identities[0]).to.deep.include({ name: 'Jane Doe', verdict: 'trusted' });
    expect(verified.identities[0].roles).to.deep.equal(['cawg.publisher']);

    const own = await withTemplate(bearer(a.access), { identity: { roles: ['cawg.editor'] } });
    expect(own.status).to.equal(202);
    expect((await api.db.knex('sign_jobs').where({ id: own.body.job_id }).first('identity_roles')).identity_roles).to.deep.equal(['cawg.editor']);
  });

  it('a template\'s identity meets the same refusals: 422 no_identity for a key of no person, 409 identity_certificate_missing; a replayed request is the same job', async () => {
    const key = (await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'template-cms' }).expect(201)).body.key;
    const keyed = await withTemplate({ 'X-API-Key': key });
    expect(keyed.status).to.equal(422);
    expect(keyed.body.error.code).to.equal('no_identity');
    expect(keyed.body.error.message).to.match(/template/);
    const signer = await addOrgUser(api.app, a, 'signer');
    const missing = await withTemplate(bearer(signer.access));
    expect(missing.status).to.equal(409);
    expect(missing.body.error.code).to.equal('identity_certificate_missing');

    const auth = bearer(a.access);
    const body = { upload_id: await upload(auth), manifest: { title: 'Replayed' }, template_id: templateId };
    const first = await request(api.app).post('/v1/media/sign').set(auth).set('Idempotency-Key', 'template-identity-1').send(body).expect(202);
    const again = await request(api.app).post('/v1/media/sign').set(auth).set('Idempotency-Key', 'template-identity-1').send(body);
    expect(again.status, JSON.stringify(again.body)).to.be.oneOf([200, 202]);
    expect(again.body.job_id).to.equal(first.body.job_id);
    const other = await request(api.app).post('/v1/media/sign').set(auth).set('Idempotency-Key', 'template-identity-1').send({ ...body, identity: { roles: ['cawg.editor'] } });
    expect(other.status).to.equal(409);
  });

  it("once the user is deleted their earlier file still reads Trusted (its signatures were made while the certificate was good)", async () => {
    // A second admin removes Jane (the last admin cannot be removed).
    const other = await addOrgUser(api.app, a, 'admin');
    await request(api.app).delete(`/org/users/${a.userId}`).set(bearer(other.access)).expect(204);
    // The scheduler carries out the revocation the deletion asked for.
    await until('the identity certificate revoked', async () => Number((await api.db.knex('certificates').where({ role: 'identity' }).whereNotNull('revoked_at').count('* as n'))[0]!.n) > 0);
    const report = await readAsset(janeFile, 'image/jpeg', withCawgAnchor());
    expect(report.validation_state).to.equal('Trusted');
  });
});
