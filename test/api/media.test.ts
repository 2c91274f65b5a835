import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { writeZip } from '../support/zip-writer.js';
import request from 'supertest';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { addOrgUser, bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));
const JPEG = fixture('photo.jpg');
const PNG = fixture('graphic.png');

function upload(api: TestApi, auth: Record<string, string>, bytes: Buffer, filename: string) {
  return request(api.app).post('/v1/media/upload').set(auth).attach('file', bytes, { filename, contentType: 'application/octet-stream' });
}


describe('media upload and sign requests', () => {
  let api: TestApi;
  let a: Account;
  let b: Account;
  let apiKey: Record<string, string>;
  let queue: Queue;
  before(async () => {
    api = await startTestApi({ MAX_UPLOAD_BYTES: '10000' });
    // Sign requests are refused (503) without a valid signing certificate.
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    a = await registerAccount(api.app, 'A');
    b = await registerAccount(api.app, 'B');
    const key = await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'cms' }).expect(201);
    apiKey = { 'X-API-Key': key.body.key };
    queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: api.config.redisUrl }, prefix: api.config.queuePrefix });
  });
  after(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await api.close();
  });

  describe('POST /v1/media/upload', () => {
    it('accepts a PNG by content whatever its name, with a bearer token or an API key', async () => {
      const res = await upload(api, bearer(a.access), PNG, 'holiday.gif').expect(201);
      expect(res.body).to.include({ mime_type: 'image/png', size: PNG.length, filename: 'holiday.gif' });
      expect(res.body.sha256).to.equal(createHash('sha256').update(PNG).digest('hex'));
      expect(res.body.upload_id).to.match(/^[0-9a-f-]{36}$/);
      const viaKey = await upload(api, apiKey, PNG, 'x.png').expect(201);
      expect(viaKey.body.mime_type).to.equal('image/png');
    });

    it('accepts a JPEG under the limit; 413 over it, keeping nothing', async () => {
      const small = await upload(api, bearer(a.access), fixture('small.jpg'), 'small.jpg').expect(201);
      expect(small.body.mime_type).to.equal('image/jpeg');
      const rows = async () => Number((await api.db.knex('uploads').count('* as n'))[0]!.n);
      const n = await rows();
      const big = await upload(api, bearer(a.access), JPEG, 'photo.jpg');
      expect(JPEG.length).to.be.greaterThan(10000);
      expect(big.status).to.equal(413);
      expect(big.body.error.code).to.equal('payload_too_large');
      expect(await rows()).to.equal(n);
      expect(readdirSync(path.join(api.config.dataDir, 'tmp'))).to.deep.equal([]);
    });

    for (const [label, bytes, status] of [
      ['a BMP', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]), 415],
      ['a plain ZIP', writeZip([{ name: 'notes.txt', data: 'notes' }]), 415],
      ['a PDF without a cross-reference table', Buffer.from('%PDF-1.4\n%%EOF\n'), 400],
      ['text renamed .jpg', Buffer.from('hello, this is not an image\n'), 415],
      ['a truncated PNG', PNG.subarray(0, PNG.length - 20), 400],
      ['a PNG with a damaged chunk', Buffer.concat([PNG.subarray(0, 40), Buffer.from([PNG[40]! ^ 0xff]), PNG.subarray(41)]), 400],
      ['a truncated JPEG header', JPEG.subarray(0, 200), 400],
      ['zero bytes', Buffer.alloc(0), 400],
    ] as const) {
      it(`refuses ${label} with ${status} and stores nothing`, async () => {
        const count = async () => Number((await api.db.knex('uploads').where({ org_id: a.orgId }).count('* as n'))[0]!.n);
        const n = await count();
        const res = await upload(api, bearer(a.access), bytes, 'photo.jpg');
        expect(res.status, JSON.stringify(res.body)).to.equal(status);
        expect(res.body.error.code).to.be.a('string');
        expect(await count()).to.equal(n);
      });
    }

    it('400 without a part named file; 415 when not multipart; 403 for a viewer; 401 without credentials', async () => {
      const noFile = await request(api.app).post('/v1/media/upload').set(bearer(a.access)).attach('other', PNG, 'x.png');
      expect(noFile.status).to.equal(400);
      const json = await request(api.app).post('/v1/media/upload').set(bearer(a.access)).send({ file: 'x' });
      expect(json.status).to.equal(415);
      const viewer = bearer((await addOrgUser(api.app, a, 'viewer')).access);
      expect((await upload(api, viewer, PNG, 'x.png')).status).to.equal(403);
      expect((await upload(api, {}, PNG, 'x.png')).status).to.equal(401);
    });

    it('lists uploads of the own organisation only, paginated', async () => {
      for (let i = 0; i < 3; i += 1) await upload(api, bearer(b.access), PNG, `b${i}.png`).expect(201);
      const page1 = await request(api.app).get('/v1/media/uploads?limit=2').set(bearer(b.access)).expect(200);
      expect(page1.body.uploads).to.have.length(2);
      expect(page1.body.next_cursor).to.be.a('string');
      const page2 = await request(api.app).get(`/v1/media/uploads?limit=2&cursor=${page1.body.next_cursor}`).set(bearer(b.access)).expect(200);
      const names = [...page1.body.uploads, ...page2.body.uploads].map((u: { filename: string }) => u.filename);
      expect(names).to.have.members(['b0.png', 'b1.png', 'b2.png']);
      const listA = await request(api.app).get('/v1/media/uploads?limit=100').set(bearer(a.access)).expect(200);
      expect(listA.body.uploads.map((u: { filename: string }) => u.filename)).to.not.include('b0.png');
      expect((await request(api.app).get('/v1/media/uploads?limit=0').set(bearer(a.access))).status).to.equal(400);
    });
  });

  describe('POST /v1/media/sign', () => {
    let uploadId: string;
    before(async () => {
      uploadId = (await upload(api, bearer(a.access), PNG, 'p.png').expect(201)).body.upload_id;
    });

    it('answers 202 with job_id, status and status_url, and puts the job on BullMQ under its own id', async () => {
      const res = await request(api.app).post('/v1/media/sign').set(apiKey).send({ upload_id: uploadId, manifest: { title: 'T', creator: 'C' } }).expect(202);
      expect(res.body.status).to.equal('queued');
      expect(res.body.status_url).to.equal(`${api.config.baseUrl}/v1/media/jobs/${res.body.job_id}`);
      const job = await queue.getJob(res.body.job_id);
      expect(job?.data).to.deep.equal({ jobId: res.body.job_id });
      expect(job?.opts.attempts).to.equal(api.config.signAttempts);
    });

    for (const [label, body, field] of [
      ['no upload_id', (_id: string) => ({ manifest: { title: 'T', creator: 'C' } }), 'upload_id'],
      ['no manifest', (id: string) => ({ upload_id: id }), 'manifest'],
      ['no title', (id: string) => ({ upload_id: id, manifest: { creator: 'C' } }), 'title'],
      ['no creator', (id: string) => ({ upload_id: id, manifest: { title: 'T' } }), 'creator'],
      ['a numeric title', (id: string) => ({ upload_id: id, manifest: { title: 5, creator: 'C' } }), 'title'],
    ] as const) {
      it(`400 naming ${field} for ${label}`, async () => {
        const res = await request(api.app).post('/v1/media/sign').set(bearer(a.access)).send(body(uploadId));
        expect(res.status).to.equal(400);
        expect(res.body.error.message).to.contain(field);
      });
    }

    it("404 for an unknown upload and for another organisation's upload; 403 for a viewer", async () => {
      const manifest = { title: 'T', creator: 'C' };
      expect((await request(api.app).post('/v1/media/sign').set(bearer(a.access)).send({ upload_id: '00000000-0000-4000-8000-000000000000', manifest })).status).to.equal(404);
      expect((await request(api.app).post('/v1/media/sign').set(bearer(b.access)).send({ upload_id: uploadId, manifest })).status).to.equal(404);
      const viewer = bearer((await addOrgUser(api.app, a, 'viewer')).access);
      expect((await request(api.app).post('/v1/media/sign').set(viewer).send({ upload_id: uploadId, manifest })).status).to.equal(403);
    });

    it('the same Idempotency-Key returns the same job; a different request under it is 409', async () => {
      const manifest = { title: 'Same', creator: 'Me' };
      const first = await request(api.app).post('/v1/media/sign').set(bearer(a.access)).set('Idempotency-Key', 'k-1').send({ upload_id: uploadId, manifest }).expect(202);
      const again = await request(api.app).post('/v1/media/sign').set(bearer(a.access)).set('Idempotency-Key', 'k-1').send({ upload_id: uploadId, manifest }).expect(202);
      expect(again.body.job_id).to.equal(first.body.job_id);
      const other = await request(api.app).post('/v1/media/sign').set(bearer(a.access)).set('Idempotency-Key', 'k-1').send({ upload_id: uploadId, manifest: { title: 'Else', creator: 'Me' } });
      expect(other.status).to.equal(409);
      // Keys are per organisation.
      const bUpload = (await upload(api, bearer(b.access), PNG, 'b.png').expect(201)).body.upload_id;
      const bJob = await request(api.app).post('/v1/media/sign').set(bearer(b.access)).set('Idempotency-Key', 'k-1').send({ upload_id: bUpload, manifest }).expect(202);
      expect(bJob.body.job_id).to.not.equal(first.body.job_id);
    });

    it("reads jobs of its own organisation; another organisation's job is 404; lists filter by status", async () => {
      const job = (await request(api.app).post('/v1/media/sign').set(bearer(a.access)).send({ upload_id: uploadId, manifest: { title: 'T', creator: 'C' } }).expect(202)).body;
      const got = await request(api.app).get(`/v1/media/jobs/${job.job_id}`).set(bearer(a.access)).expect(200);
      expect(got.body).to.include({ job_id: job.job_id, status: 'queued', upload_id: uploadId });
      expect(got.body.signed_file).to.equal(null);
      expect((await request(api.app).get(`/v1/media/jobs/${job.job_id}`).set(bearer(b.access))).status).to.equal(404);
      expect((await request(api.app).get('/v1/media/jobs/not-a-uuid').set(bearer(a.access))).status).to.equal(400);
      const queued = await request(api.app).get('/v1/media/jobs?status=queued&limit=100').set(bearer(a.access)).expect(200);
      expect(queued.body.jobs.map((j: { job_id: string }) => j.job_id)).to.include(job.job_id);
      const signed = await request(api.app).get('/v1/media/jobs?status=signed').set(bearer(a.access)).expect(200);
      expect(signed.body.jobs).to.deep.equal([]);
      expect((await request(api.app).get('/v1/media/jobs?status=bogus').set(bearer(a.access))).status).to.equal(400);
      const bList = await request(api.app).get('/v1/media/jobs?limit=100').set(bearer(b.access)).expect(200);
      expect(bList.body.jobs.map((j: { job_id: string }) => j.job_id)).to.not.include(job.job_id);
    });

    it('?wait= returns when the job changes, woken by the job event rather than a timer', async () => {
      const job = (await request(api.app).post('/v1/media/sign').set(bearer(a.access)).send({ upload_id: uploadId, manifest: { title: 'T', creator: 'C' } }).expect(202)).body;
      const waiting = request(api.app).get(`/v1/media/jobs/${job.job_id}?wait=30`).set(bearer(a.access));
      const pending = waiting.then((r) => r);
      // Change the job the way a worker does: update the row, then publish.
      await new Promise((r) => setTimeout(r, 300));
      await api.db.knex('sign_jobs').where({ id: job.job_id }).update({ status: 'failed', error_code: 'x', error_message: 'y', updated_at: new Date() });
      const { RedisJobEvents } = await import('../../shared/queue/job-events.js');
      const publisher = new RedisJobEvents(api.config.redisUrl, api.config.queuePrefix, { listen: false });
      await publisher.publish(job.job_id);
      await publisher.close();
      const res = await pending;
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('failed');
      expect(res.body.error).to.deep.equal({ code: 'x', message: 'y' });
      expect((await request(api.app).get(`/v1/media/jobs/${job.job_id}?wait=31`).set(bearer(a.access))).status).to.equal(400);
    });
  });
});

describe('sign requests while the queue is down', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ REDIS_URL: 'redis://127.0.0.1:1' });
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
  });
  after(() => api.close());

  it('answers 503 and records no job', async () => {
    const acc = await registerAccount(api.app);
    const up = await upload(api, bearer(acc.access), PNG, 'p.png').expect(201);
    const res = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'T', creator: 'C' } });
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('queue_unavailable');
    expect(Number((await api.db.knex('sign_jobs').count('* as n'))[0]!.n)).to.equal(0);
  });
});
