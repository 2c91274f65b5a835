/**
 * Sign jobs and the TSA, through the API, BullMQ and a real worker process: a TSA that fails makes the attempt
 * fail and the queue retry it (never a silent signature without a timestamp); a TSA that stays down fails the
 * job with `timestamp_unavailable`; only SIGN_WITHOUT_TIMESTAMP=true signs without one.
 */
import { expect } from 'chai';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { initPki } from '../../shared/pki/init.js';
import { loadTsaIdentity } from '../../shared/tsa/identity.js';
import { derToPem } from '../../shared/pki/pem.js';
import { NoTsaCertificateError } from '../../shared/tsa/authority.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';
import { fixture } from '../c2pa/helpers.js';
import { startTestTsa, type RunningTsa } from './support.js';

describe('tsa: every sign job is timestamped, or retried', function () {
  this.timeout(90_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let tsa: RunningTsa;
  let worker: RoleProcess | undefined;
  /** TSA requests to refuse (systemFailure) before answering again; Infinity: always refuse. */
  let refuseNext = 0;
  let tsaRequests = 0;

  before(async function () {
    api = await startTestApi({ SIGN_ATTEMPTS: '3', SIGN_BACKOFF_MS: '100' });
    const vault = createKeyVault(api.config);
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    rootPem = derToPem(pki.root.der);
    const identity = await loadTsaIdentity({ knex: api.db.knex, vault });
    tsa = await startTestTsa(async () => {
      tsaRequests += 1;
      if (refuseNext > 0) {
        refuseNext -= 1;
        throw new NoTsaCertificateError('refused by the test');
      }
      return identity;
    }, { policy: api.config.tsaPolicyOid });
    acc = await registerAccount(api.app, 'Stamped');
  });
  afterEach(async function () {
    await worker?.stop();
    worker = undefined;
  });
  after(async function () {
    await tsa?.close();
    await api?.close();
  });

  const startWorker = (extra: Record<string, string> = {}) => startTestWorker(api, tsa.url, extra);

  async function signOne(name = 'photo.jpg') {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', await fixture(name).then(Buffer.from), name).expect(201);
    const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'T', creator: 'C' } }).expect(202);
    for (let i = 0; i < 6; i += 1) {
      const res = await request(api.app).get(`/v1/media/jobs/${job.body.job_id}?wait=20`).set(bearer(acc.access)).expect(200);
      if (!['queued', 'processing'].includes(res.body.status)) return res.body;
    }
    throw new Error('job did not finish');
  }

  async function download(job: { signed_file: { download_url: string } }): Promise<Uint8Array> {
    const res = await request(api.app).get(new URL(job.signed_file.download_url).pathname).set(bearer(acc.access)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (d: Buffer) => parts.push(d));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    return new Uint8Array(res.body as Buffer);
  }

  it('a TSA that refuses twice: the job is retried and signed on the third attempt, with a trusted timestamp', async function () {
    worker = await startWorker();
    refuseNext = 2;
    tsaRequests = 0;
    const job = await signOne();
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    expect(job.attempts).to.equal(3);
    expect(tsaRequests).to.equal(3);
    const report = await readAsset(await download(job), 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state).to.equal('Trusted');
    expect(report.timestamp).to.include({ validated: true, trusted: true });
  });

  it('a TSA that stays down: the job fails after its attempts with timestamp_unavailable, and no file is signed', async function () {
    worker = await startWorker();
    refuseNext = Infinity;
    const job = await signOne('graphic.png');
    refuseNext = 0;
    expect(job.status).to.equal('failed');
    expect(job.attempts).to.equal(3);
    expect(job.error).to.deep.equal({ code: 'timestamp_unavailable', message: 'the time-stamp authority could not be reached or gave no valid timestamp' });
    expect(job.signed_file).to.equal(null);
    expect(worker.output()).to.not.include('PRIVATE KEY');
  });

  it('SIGN_WITHOUT_TIMESTAMP=true (not recommended) signs without asking the TSA, and says so in the log', async function () {
    worker = await startWorker({ SIGN_WITHOUT_TIMESTAMP: 'true' });
    refuseNext = Infinity;
    tsaRequests = 0;
    const job = await signOne();
    refuseNext = 0;
    expect(job.status).to.equal('signed');
    expect(tsaRequests).to.equal(0);
    const report = await readAsset(await download(job), 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state).to.equal('Trusted');
    expect(report.timestamp).to.equal(null);
    expect(worker.output()).to.include('SIGN_WITHOUT_TIMESTAMP is set');
  });
});
