/**
 * The soft-binding setting (migration 010): an organisation, a template or a sign request may turn the fingerprint
 * off. Signed through the API and a worker process: such a file carries no c2pa.soft-binding assertion, reads
 * Trusted, keeps its manifest in the repository and has no row in the soft-binding index; a template or a request
 * that turns it on again gets both.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, downloadFile, registerAccount, startTestApi, waitForJob, type Account, type TestApi } from '../support/api.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const photo = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));

describe('soft-binding setting: organisation, template and sign request', function () {
  this.timeout(120_000);
  let api: TestApi;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let worker: RoleProcess;
  let acc: Account;

  /** Uploads the photo and signs it with `extra` next to the manifest; the job's signed file and its row id. */
  async function signPhoto(extra: Record<string, unknown>) {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', photo, 'photo.jpg').expect(201);
    const queued = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Harbour', creator: 'Desk' }, ...extra }).expect(202);
    const job = await waitForJob(api.app, acc, queued.body.job_id as string);
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    const bytes = await downloadFile(api.app, acc, job.signed_file.download_url);
    const report = await readAsset(bytes, 'image/jpeg', { trustAnchorsPem: derToPem(pki.root.der) });
    const fileId = job.signed_file.file_id as string;
    const indexed = await api.db.knex('soft_bindings').where({ signed_file_id: fileId }).count<{ count: string }[]>('* as count');
    const repository = await api.db.knex('manifest_stores').where({ signed_file_id: fileId }).first('manifest_id');
    return { report, indexRows: Number(indexed[0]!.count), manifestId: repository?.manifest_id as string | undefined };
  }

  before(async () => {
    api = await startTestApi();
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`);
    acc = await registerAccount(api.app, 'Quiet Press');
  });
  after(async () => {
    await worker?.stop();
    await tsa?.close();
    await api?.close();
  });

  it('is on by default, and PATCH /org turns it off without touching discoverability', async () => {
    const before = await request(api.app).get('/org').set(bearer(acc.access)).expect(200);
    expect(before.body).to.include({ soft_binding: true, discoverable: true });
    const patched = await request(api.app).patch('/org').set(bearer(acc.access)).send({ soft_binding: false }).expect(200);
    expect(patched.body).to.include({ soft_binding: false, discoverable: true });
    expect((await request(api.app).get('/org').set(bearer(acc.access)).expect(200)).body.soft_binding).to.equal(false);
  });

  it('refuses a soft_binding that is not true or false, and changes nothing', async () => {
    const res = await request(api.app).patch('/org').set(bearer(acc.access)).send({ soft_binding: 'no' }).expect(400);
    expect(res.body.error.code).to.equal('validation_error');
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', photo, 'photo.jpg').expect(201);
    const sign = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'T', creator: 'C' }, soft_binding: 1 }).expect(400);
    expect(sign.body.error.message).to.contain('soft_binding');
    const tpl = await request(api.app).post('/v1/manifest-templates').set(bearer(acc.access)).send({ name: 'Bad', manifest: {}, soft_binding: 'yes' }).expect(400);
    expect(tpl.body.error.message).to.contain('soft_binding');
    expect((await request(api.app).get('/org').set(bearer(acc.access)).expect(200)).body.soft_binding).to.equal(false);
    const jobs = await api.db.knex('sign_jobs').where({ org_id: acc.orgId }).count<{ count: string }[]>('* as count');
    expect(Number(jobs[0]!.count)).to.equal(0);
  });

  it('off: the signed file reads Trusted, carries no c2pa.soft-binding assertion, and is in the repository but not the index', async () => {
    const { report, indexRows, manifestId } = await signPhoto({});
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.manifest?.assertions).to.not.include('c2pa.soft-binding');
    expect(indexRows).to.equal(0);
    expect(manifestId).to.equal(report.active_manifest);
  });

  it('a template or a sign request that turns it on gets the assertion and the index row; one that turns it off does not', async () => {
    const tpl = await request(api.app).post('/v1/manifest-templates').set(bearer(acc.access)).send({ name: 'Findable', manifest: { creator: 'Desk' }, soft_binding: true }).expect(201);
    expect(tpl.body.soft_binding).to.equal(true);
    const viaTemplate = await signPhoto({ template_id: tpl.body.template_id });
    expect(viaTemplate.report.validation_state).to.equal('Trusted');
    expect(viaTemplate.report.manifest?.assertions).to.include('c2pa.soft-binding');
    expect(viaTemplate.indexRows).to.equal(1);

    const viaRequest = await signPhoto({ soft_binding: true });
    expect(viaRequest.report.manifest?.assertions).to.include('c2pa.soft-binding');
    expect(viaRequest.indexRows).to.equal(1);

    // The request's choice over the template's.
    const overridden = await signPhoto({ template_id: tpl.body.template_id, soft_binding: false });
    expect(overridden.report.validation_state).to.equal('Trusted');
    expect(overridden.report.manifest?.assertions).to.not.include('c2pa.soft-binding');
    expect(overridden.indexRows).to.equal(0);
  });
});
