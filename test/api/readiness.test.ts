/**
 * Readiness (/health/ready) names what a sign request is missing, and a sign request without a valid signing
 * certificate is refused at once (503 no_signing_certificate) instead of queueing a job that can only fail.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../api/app.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { ensureOrgCertificate } from '../../shared/pki/org-signing.js';
import { createPkiEvents } from '../../shared/pki/pki-events.js';
import { createFileStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';
import type { KeyVault } from '../../shared/vault/types.js';
import { VaultUnavailableError } from '../../shared/vault/types.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';

describe('readiness and sign requests without a signing certificate', function () {
  this.timeout(60_000);
  let api: TestApi;
  let acc: Account;
  before(async () => {
    api = await startTestApi();
    acc = await registerAccount(api.app, 'Ready Org');
  });
  after(() => api.close());

  const sign = async () => {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', noisePng(32, 32), 'n.png').expect(201);
    return request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'T', creator: 'C' } });
  };
  const jobCount = async () => Number((await api.db.knex('sign_jobs').count('* as n'))[0]!.n);

  it('before the PKI exists: not ready (signing_certificate: no issuing CA), and sign answers 503 without recording a job', async () => {
    const ready = await request(api.app).get('/health/ready').expect(503);
    expect(ready.body.status).to.equal('not_ready');
    expect(ready.body.failing).to.deep.equal(['signing_certificate']);
    expect(ready.body.checks).to.deep.include({ database: 'ok', redis: 'ok', storage: 'ok', signing_certificate: 'missing' });
    const res = await sign();
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('no_signing_certificate');
    expect(res.headers['retry-after']).to.equal('60');
    expect(await jobCount()).to.equal(0);
    // /health stays the liveness check: the process is alive.
    await request(api.app).get('/health').expect(200);
  });

  it('with a valid certificate: ready, and sign is accepted', async () => {
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    const ready = await request(api.app).get('/health/ready').expect(200);
    expect(ready.body).to.deep.equal({
      status: 'ready',
      failing: [],
      checks: { database: 'ok', redis: 'ok', storage: 'ok', vault: 'ok', signing_certificate: 'ok' },
    });
    expect((await sign()).status).to.equal(202);
  });

  it("after the organisation's certificate is revoked: its sign requests answer 503 at once; the service stays ready for the others", async () => {
    const deps = { knex: api.db.knex, vault: createKeyVault(api.config), config: api.config };
    // Registered before the PKI existed: the organisation gets its certificate now (or with its first signature).
    const cert = await ensureOrgCertificate(deps, acc.orgId);
    const events = createPkiEvents(api.config, api.db.knex, createLogger('silent', 'test'));
    await revokeCertificate({ ...deps, events }, cert.serial, 'keyCompromise');
    await events.close();
    const before = await jobCount();
    const res = await sign();
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('no_signing_certificate');
    expect(res.body.error.message).to.contain('revoked');
    expect(await jobCount()).to.equal(before);
    await request(api.app).get('/health/ready').expect(200);
  });

  it('names the vault when it cannot be reached, and Redis when it does not answer', async () => {
    const down: KeyVault = {
      kind: 'test-down',
      ensureKey: () => Promise.reject(new VaultUnavailableError('the key vault could not be reached')),
      getKey: () => Promise.reject(new VaultUnavailableError('the key vault could not be reached')),
    };
    const app = createApp({
      config: api.config,
      knex: api.db.knex,
      logger: createLogger('silent', 'test'),
      pingRedis: async () => false,
      files: createFileStore(api.config),
      vault: down,
      signQueue: { kind: 'bullmq', enqueue: async () => undefined, liveJobs: async () => new Set(), requeue: async () => undefined, counts: async () => ({ waiting: 0, active: 0, delayed: 0, failed: 0 }), close: async () => undefined },
      jobEvents: { publish: async () => undefined, waitForChange: () => ({ changed: Promise.resolve(), cancel: () => undefined }), close: async () => undefined },
    });
    const ready = await request(app).get('/health/ready').expect(503);
    expect(ready.body.failing).to.have.members(['redis', 'vault']);
    expect(ready.body.checks.vault).to.equal('the key vault could not be reached');
  });
});
