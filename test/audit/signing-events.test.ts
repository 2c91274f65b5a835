/**
 * A signature from end to end (API, worker process, TSA): its audit events are sign.requested by the caller, then
 * sign.signed for the same caller with the signed file's SHA-256 and the certificate serial, as the job reports them.
 */
import { expect } from 'chai';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import request from 'supertest';
import { bearer, registerAccount, startTestApi, submitSign, waitForJob, type TestApi } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

describe('audit events of a signature', function () {
  this.timeout(180_000);
  let api: TestApi;
  let tsa: TsaService;
  let worker: RoleProcess;

  before(async () => {
    api = await startTestApi();
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '1', JWT_SECRET: api.config.jwtSecret });
  });
  after(async () => {
    await worker?.stop();
    await tsa?.close();
    await api?.close();
  });

  it('records sign.requested and sign.signed (file SHA-256, certificate serial) for the caller', async () => {
    const a = await registerAccount(api.app, 'Signer Org');
    const jobId = await submitSign(api.app, a, noisePng(96, 64), 'audited.png');
    const job = await waitForJob(api.app, a, jobId);
    expect(job.status).to.be.oneOf(['signed', 'anchoring', 'anchored']);
    const { events } = (await request(api.app).get('/org/audit-events?limit=100').set(bearer(a.access)).expect(200)).body as {
      events: Array<{ action: string; actor: Record<string, string>; target: { id: string } | null; details: Record<string, unknown> }>;
    };
    const ofJob = events.filter((e) => e.target?.id === jobId);
    expect(ofJob.map((e) => e.action)).to.deep.equal(['sign.signed', 'sign.requested']);
    for (const e of ofJob) expect(e.actor).to.deep.equal({ type: 'user', id: a.userId });
    const signed = ofJob[0]!.details;
    expect(signed.file_sha256).to.equal(job.signed_file.sha256);
    expect(signed.certificate_serial).to.be.a('string').and.not.equal('');
    expect(signed.performed_by).to.equal('worker');
  });
});
