/**
 * Stapled OCSP answers end to end: a sign job run by a separate worker process (its sandbox processes) staples its
 * organisation's certificate's answer from the service's own responder (the ocsp role, answering with the delegated
 * responder the scheduler issued); c2pa-rs with fetching off and the API's verify both read it. With the responder
 * gone, signing goes on without an answer and the worker's metrics count it.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { ensureOcspResponder } from '../../shared/pki/ocsp-responder.js';
import { derToPem } from '../../shared/pki/pem.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { freePort } from '../support/api-process.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const photo = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));

describe('signing pipeline: the OCSP answer stapled by the worker', function () {
  this.timeout(180_000);
  let api: TestApi;
  let role: OcspRole | undefined;
  let worker: RoleProcess | undefined;
  let rootPem: string;
  /** The TSA on its own (the role's goes down with it in the second test). */
  let tsa: TsaService;

  const download = async (acc: Account, url: string): Promise<Buffer> =>
    (
      await request(api.app)
        .get(new URL(url).pathname)
        .set(bearer(acc.access))
        .buffer(true)
        .parse((res, cb) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => cb(null, Buffer.concat(parts)));
        })
        .expect(200)
    ).body as Buffer;

  const metricsOf = async (w: RoleProcess): Promise<string> => {
    const port = /"msg":"operator listener[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"operator listener/.exec(w.output());
    expect(port, w.output()).to.not.equal(null);
    return (await fetch(`http://127.0.0.1:${port![1] ?? port![2]}/metrics`)).text();
  };

  before(async function () {
    const ocspPort = await freePort();
    // Organisations' certificates name this responder (OCSP_URL), as in a deployment.
    api = await startTestApi({ OCSP_PORT: String(ocspPort), OCSP_URL: `http://127.0.0.1:${ocspPort}`, TSA_PORT: '0', CRL_PORT: '0' });
    const vault = createKeyVault(api.config);
    const events = new InProcessPkiEvents();
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config, events });
    // What the scheduler does once the sub-CA exists.
    await ensureOcspResponder({ knex: api.db.knex, vault, config: api.config, events });
    rootPem = derToPem(pki.root.der);
    role = await startOcspRole(api.config, api.db.knex, vault, createLogger('silent', 'ocsp'), { events, host: '127.0.0.1' });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '1' });
  });

  after(async function () {
    await worker?.stop();
    await role?.();
    await tsa?.close();
    await api?.close();
  });

  it("staples the organisation certificate's answer: c2pa-rs reads notRevoked, verify reports the answer", async function () {
    const acc = await registerAccount(api.app, 'Stapled Newsroom');
    const job = await waitForJob(api.app, acc, await submitSign(api.app, acc, photo, 'photo.jpg', { title: 'Harbour', creator: 'Jane Doe' }));
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    const signed = await download(acc, job.signed_file.download_url);

    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state, report.summary).to.equal('Trusted');
    expect(report.status.success).to.include('signingCredential.ocsp.notRevoked');

    const verified = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'photo.jpg').expect(200);
    expect(verified.body.validation_state).to.equal('Trusted');
    expect(verified.body.ocsp).to.deep.include({
      status: 'good',
      responder: `CN=${api.config.pki.ocspCommonName},O=${api.config.pki.organisation}`,
      verified: true,
      revoked_at: null,
      codes: ['signingCredential.ocsp.notRevoked'],
    });
    expect(Math.abs(Date.parse(verified.body.ocsp.produced_at) - Date.now())).to.be.lessThan(300_000);
    // The web verdict says it in words (web/app/verdict-view.js, JavaScript without types: imported by URL).
    const verdictWords: { stapledOcspWords(ocsp: unknown): string } = await import(new URL('../../web/app/verdict-view.js', import.meta.url).href);
    expect(verdictWords.stapledOcspWords(verified.body.ocsp)).to.equal(`Revocation checked at signing: good, by ${api.config.pki.ocspCommonName}.`);
    // The public verify reads it the same way.
    const publicly = await request(api.app).post('/v1/verify').attach('file', signed, 'photo.jpg').expect(200);
    expect(publicly.body.ocsp).to.deep.include({ status: 'good', verified: true });

    expect(await metricsOf(worker!)).to.include('mss_ocsp_staples_total{outcome="stapled",reason="fetched"} 1');
  });

  it('signs without an answer when the responder is down, and counts it', async function () {
    await role!();
    role = undefined;
    // Another organisation: a certificate whose answer this worker has not kept.
    const acc = await registerAccount(api.app, 'Unstapled Newsroom');
    const job = await waitForJob(api.app, acc, await submitSign(api.app, acc, photo, 'photo.jpg', { title: 'Harbour', creator: 'Jane Doe' }));
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    const signed = await download(acc, job.signed_file.download_url);
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state, report.summary).to.equal('Trusted');
    expect(report.status.success.filter((c) => c.includes('ocsp'))).to.deep.equal([]);
    const verified = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'photo.jpg').expect(200);
    expect(verified.body.ocsp).to.equal(null);
    expect(await metricsOf(worker!)).to.include('mss_ocsp_staples_total{outcome="missing",reason="unreachable"} 1');
  });
});
