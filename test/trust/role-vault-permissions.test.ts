/**
 * One door for certificates: the web and worker roles run with a vault identity that cannot sign with the root or
 * sub-CA key (as Azure RBAC grants it: read every key, sign only with organisations' keys), yet organisations are
 * registered, get their certificates, sign, rotate and rename. The scheduler, with the CA keys, issues.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { RedisJobEvents } from '../../shared/queue/job-events.js';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import { AzureKeyVault, VaultUnavailableError } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps } from '../../workers/sign-job/deps.js';
import { bearer, downloadFile, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { AzureKeyVaultStandin } from '../support/azure-keyvault-standin.js';

describe('trust: the web and worker roles never sign with a CA key', function () {
  this.timeout(90_000);
  let standin: AzureKeyVaultStandin;
  let api: TestApi;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let events: RedisJobEvents;
  let limited: AzureKeyVault;
  let account: Account;

  before(async () => {
    standin = await AzureKeyVaultStandin.create();
    const full = new AzureKeyVault(standin.vaultUrl, standin.credential(), standin.clientOptions());
    // The web and worker roles' identity: organisations' keys to sign with, nothing to create, the rest read-only.
    limited = new AzureKeyVault(standin.vaultUrl, standin.scopedCredential({ maySign: (key) => key.startsWith('org-'), mayCreate: () => false }), standin.clientOptions());
    api = await startTestApi({}, { vault: limited, issuerVault: full });
    pki = await initPki({ knex: api.db.knex, vault: full, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, full, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    events = new RedisJobEvents(api.config.redisUrl, api.config.queuePrefix, { listen: false });
  });
  after(async () => {
    const queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: api.config.redisUrl }, prefix: api.config.queuePrefix });
    await queue.obliterate({ force: true });
    await queue.close();
    await events?.close();
    await tsa?.close();
    await api?.close();
    await standin?.close();
  });

  /** The worker's own code path (signJobDeps, processSignJob) with the limited identity. */
  async function signThroughWorker(acc: Account): Promise<{ serial: string; subject: string; bytes: Buffer }> {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', readFileSync(new URL('../fixtures/small.jpg', import.meta.url)), 'small.jpg').expect(201);
    const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Scoped', creator: 'Desk' } }).expect(202);
    const deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault: limited, events, logger: createLogger('silent', 'worker') }), timestamper: httpTimestamper({ url: `http://127.0.0.1:${tsa.port}` }) };
    await processSignJob(deps, job.body.job_id, { number: 1, final: true });
    const view = (await request(api.app).get(`/v1/media/jobs/${job.body.job_id}`).set(bearer(acc.access)).expect(200)).body;
    expect(view.status, JSON.stringify(view)).to.equal('signed');
    return { serial: view.signed_file.certificate_serial, subject: view.signed_file.certificate_subject, bytes: await downloadFile(api.app, acc, view.signed_file.download_url) };
  }

  it('the limited identity really cannot sign with the sub-CA or the root key', async () => {
    for (const name of [api.config.subCaKeyName, api.config.rootKeyName]) {
      const key = await limited.getKey(name);
      let caught: unknown;
      try {
        await key.signEs384(new Uint8Array([1, 2, 3]));
      } catch (err) {
        caught = err;
      }
      expect(caught, name).to.be.instanceOf(VaultUnavailableError);
    }
    expect(standin.requests.filter((r) => r.forbidden)).to.have.length(2);
  });

  it('registration gets the organisation its certificate from the scheduler; the worker signs with it, Trusted', async () => {
    account = await registerAccount(api.app, 'Scoped Press');
    const cert = (await request(api.app).get('/org/signing-certificate').set(bearer(account.access)).expect(200)).body;
    expect(cert.status).to.equal('valid');
    const signed = await signThroughWorker(account);
    expect(signed.serial).to.equal(cert.current.serial);
    const report = await readAsset(signed.bytes, 'image/jpeg', { trustAnchorsPem: derToPem(pki.root.der) });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
  });

  it('rotation and rename through the API are issued by the scheduler; signing goes on with the new certificate', async () => {
    const before = (await request(api.app).get('/org/signing-certificate').set(bearer(account.access)).expect(200)).body.current.serial;
    const rotated = await request(api.app).post('/org/signing-certificate/rotate').set(bearer(account.access)).expect(201);
    expect(rotated.body.serial).to.not.equal(before);
    await request(api.app).patch('/org').set(bearer(account.access)).send({ name: 'Scoped Press Group' }).expect(200);
    const signed = await signThroughWorker(account);
    expect(signed.subject).to.equal('CN=Scoped Press Group,O=Scoped Press Group');
    // Only the two deliberate probes above were refused: the roles never tried a CA key.
    expect(standin.requests.filter((r) => r.forbidden)).to.have.length(2);
  });

  it('an organisation whose first signature comes before the scheduler answered waits for it', async () => {
    const orgId = 'c0ffee00-0000-4000-8000-000000000002';
    await api.db.knex('organisations').insert({ id: orgId, name: 'Late Org' });
    const { loadOrgSigningIdentity } = await import('../../shared/pki/org-signing-identity.js');
    const identity = await loadOrgSigningIdentity({ knex: api.db.knex, vault: limited }, orgId);
    expect(identity.subject).to.equal('CN=Late Org,O=Late Org');
  });
});

describe('trust: certificate requests wait for the scheduler, and say why when it cannot issue', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({}, { issuer: false });
  });
  after(() => api.close());

  it('a request nobody answers stays pending; the scheduler answers it later, or says there is no CA', async () => {
    const { requestOrgCertificate, awaitCertificateRequest, answerCertificateRequests } = await import('../../shared/pki/certificate-requests.js');
    const { createKeyVault } = await import('../../shared/vault/index.js');
    const orgId = 'c0ffee00-0000-4000-8000-000000000003';
    await api.db.knex('organisations').insert({ id: orgId, name: 'Patient Org' });
    const deps = { knex: api.db.knex, vault: createKeyVault(api.config), config: api.config };

    const early = await requestOrgCertificate(api.db.knex, orgId, 'ensure');
    expect(await awaitCertificateRequest(api.db.knex, early, 200)).to.deep.equal({ status: 'pending' });
    expect(await answerCertificateRequests(deps)).to.equal(1);
    expect(await awaitCertificateRequest(api.db.knex, early, 0)).to.deep.include({ status: 'failed', code: 'no_issuing_ca' });

    await initPki(deps);
    const later = await requestOrgCertificate(api.db.knex, orgId, 'ensure');
    expect(await answerCertificateRequests(deps)).to.equal(1);
    const answer = await awaitCertificateRequest(api.db.knex, later, 0);
    expect(answer.status).to.equal('done');
    const cert = await api.db.knex('certificates').where({ org_id: orgId }).first('id', 'subject');
    expect(answer).to.deep.equal({ status: 'done', certificateId: cert.id });
    expect(cert.subject).to.equal('CN=Patient Org,O=Patient Org');

    // Answered requests are not taken again.
    expect(await answerCertificateRequests(deps)).to.equal(0);
  });
});
