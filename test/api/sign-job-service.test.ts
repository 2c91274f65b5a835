/**
 * The sign-job operations called as a test (or another role) would, without HTTP: requestSignature queues a job for
 * organisation A on the real BullMQ queue; A reads and lists it; organisation B can neither read it nor sign A's
 * upload. Accounts and the upload are made through the API, as a client makes them.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { ApiError } from '../../api/errors.js';
import type { Principal } from '../../api/auth/principal.js';
import { getSignJob, listSignJobs, requestSignature } from '../../api/services/sign-jobs.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { BullMqSignQueue } from '../../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../../shared/queue/job-events.js';
import { createFileStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { rejection } from '../support/rejection.js';

const PNG = readFileSync(new URL('../fixtures/graphic.png', import.meta.url));

const principalOf = (acc: Account): Principal => ({ kind: 'user', userId: acc.userId, orgId: acc.orgId, role: 'admin', email: acc.email });

describe('sign-job service (no HTTP): requestSignature, getSignJob, listSignJobs', () => {
  let api: TestApi;
  let a: Account;
  let b: Account;
  let uploadId: string;
  let signQueue: BullMqSignQueue;
  let jobEvents: RedisJobEvents;
  let ctx: Parameters<typeof requestSignature>[0];

  before(async () => {
    api = await startTestApi();
    // Sign requests are refused (503) without a valid signing certificate.
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    a = await registerAccount(api.app, 'A');
    b = await registerAccount(api.app, 'B');
    const up = await request(api.app).post('/v1/media/upload').set(bearer(a.access)).attach('file', PNG, { filename: 'graphic.png', contentType: 'image/png' }).expect(201);
    uploadId = up.body.upload_id;
    signQueue = new BullMqSignQueue(api.config.redisUrl, api.config.queuePrefix, { attempts: 1, backoffMs: 1000 });
    jobEvents = new RedisJobEvents(api.config.redisUrl, api.config.queuePrefix, { listen: true });
    ctx = { knex: api.db.knex, config: api.config, signQueue, jobEvents, files: createFileStore(api.config), logger: createLogger(api.config.logLevel, 'test') };
  });
  after(async () => {
    // No worker runs here: the queued jobs go with the queue.
    await signQueue.queue.obliterate({ force: true });
    await signQueue.close();
    await jobEvents.close();
    await api.close();
  });

  it("queues a job for A's upload; the same idempotency key gives the same job", async () => {
    const asked = { uploadId, templateId: null, manifest: { title: 'Direct', creator: 'Jane Doe' }, discoverable: null, softBinding: null, idempotencyKey: 'direct-1' };
    const first = await requestSignature(ctx, principalOf(a), asked);
    expect(first.created).to.equal(true);
    expect(first.job).to.include({ status: 'queued', upload_id: uploadId });
    expect(first.job.manifest).to.deep.equal({ title: 'Direct', creator: 'Jane Doe' });
    expect(await signQueue.queue.getJob(first.job.job_id)).to.not.equal(undefined);
    const again = await requestSignature(ctx, principalOf(a), asked);
    expect(again).to.deep.include({ created: false });
    expect(again.job.job_id).to.equal(first.job.job_id);
  });

  it('A reads and lists its job; B gets 404 for it and lists nothing', async () => {
    const { job } = await requestSignature(ctx, principalOf(a), { uploadId, templateId: null, manifest: { title: 'Another', creator: 'Jane Doe' }, discoverable: false, softBinding: null });
    const read = await getSignJob(ctx, a.orgId, job.job_id);
    expect(read!.job_id).to.equal(job.job_id);
    const listed = await listSignJobs(ctx, a.orgId, { limit: 20 });
    expect(listed.jobs.map((j) => j.job_id)).to.include(job.job_id);

    const err = await rejection(getSignJob(ctx, b.orgId, job.job_id));
    expect(err).to.be.instanceOf(ApiError);
    expect(err).to.include({ status: 404, code: 'not_found' });
    expect((await listSignJobs(ctx, b.orgId, { limit: 20 })).jobs).to.deep.equal([]);
  });

  it("B cannot sign A's upload: 404, and nothing is queued", async () => {
    const before = await signQueue.queue.getJobCounts();
    const err = await rejection(requestSignature(ctx, principalOf(b), { uploadId, templateId: null, manifest: { title: 'Not mine', creator: 'Mallory' }, discoverable: null, softBinding: null }));
    expect(err).to.include({ status: 404, code: 'not_found', message: 'upload not found' });
    expect(await signQueue.queue.getJobCounts()).to.deep.equal(before);
  });
});
