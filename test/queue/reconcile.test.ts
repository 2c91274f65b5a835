/**
 * Postgres is the source of truth for sign jobs: when Redis loses its data (FLUSHALL, a restart without
 * persistence), the scheduler's reconciler puts the lost jobs back and every job is signed exactly once. The roles
 * run as their own processes (workers/main.ts, scheduler/main.ts) on a private redis-server this test may flush
 * and restart.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { BullMqSignQueue } from '../../shared/queue/bullmq-sign-queue.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';
import { startRole, startTestWorker, type RoleProcess } from '../support/processes.js';

const photo = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));

describe('sign jobs survive losing Redis: the reconciler rebuilds the queue from Postgres', function () {
  this.timeout(180_000);
  let redis: PrivateRedis;
  let api: TestApi;
  let tsa: TsaService;
  let acc: Account;
  let queue: BullMqSignQueue;
  let processes: RoleProcess[] = [];

  before(async () => {
    redis = await startPrivateRedis();
    api = await startTestApi({ REDIS_URL: redis.url });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    acc = await registerAccount(api.app, 'Wire desk');
    queue = new BullMqSignQueue(redis.url, api.config.queuePrefix, { attempts: 1, backoffMs: 0 });
  });
  afterEach(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    processes = [];
  });
  after(async () => {
    await queue?.close();
    await tsa?.close();
    await api?.close();
    await redis?.stop();
  });

  const tsaUrl = () => `http://127.0.0.1:${tsa.port}`;
  const worker = async () => {
    const p = await startTestWorker(api, tsaUrl(), { WORKER_CONCURRENCY: '2', WORKER_LOCK_MS: '4000', SIGN_BACKOFF_MS: '200' });
    processes.push(p);
    return p;
  };
  const scheduler = async () => {
    const p = await startRole(
      'scheduler/main.ts',
      { NODE_ENV: 'test', DATABASE_URL: api.db.url, REDIS_URL: redis.url, QUEUE_PREFIX: api.config.queuePrefix, DATA_DIR: api.config.dataDir, LOG_LEVEL: 'info', OPS_PORT: '0', RECONCILE_INTERVAL_MS: '500', WORKER_LOCK_MS: '4000' },
      /CRL publication scheduled/,
    );
    processes.push(p);
    return p;
  };

  async function submit(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const [bytes, name] = i % 2 === 0 ? [photo, `p${i}.jpg`] : [noisePng(64, 48), `g${i}.png`];
      const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', bytes, name).expect(201);
      const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: `File ${i}`, creator: 'Desk' } }).expect(202);
      ids.push(job.body.job_id as string);
    }
    return ids;
  }

  async function statuses(ids: string[]): Promise<Map<string, string>> {
    const rows = (await api.db.knex('sign_jobs').whereIn('id', ids).select('id', 'status')) as { id: string; status: string }[];
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  async function waitAllSigned(ids: string[], timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await statuses(ids);
      if (ids.every((id) => s.get(id) === 'signed')) return;
      if (Date.now() > deadline) throw new Error(`not all signed: ${JSON.stringify([...s.values()])}\n${processes.map((p) => p.output()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** One signed file per job, and no job signed twice (a duplicate run logs that its copy was discarded). */
  async function expectSignedOnce(ids: string[]): Promise<void> {
    const files = (await api.db.knex('signed_files').whereIn('job_id', ids).select('job_id')) as { job_id: string }[];
    expect(files.map((f) => f.job_id).sort()).to.deep.equal([...ids].sort());
    const logs = processes.map((p) => p.output()).join('\n');
    expect(logs).to.not.include('duplicate run');
    for (const id of ids) {
      const signedLines = logs.split('\n').filter((l) => l.includes(`"jobId":"${id}"`) && l.includes('"msg":"signed"'));
      expect(signedLines, `signed log lines of ${id}`).to.have.length(1);
    }
  }

  it('FLUSHALL with jobs waiting: the scheduler puts them back and every job is signed exactly once', async () => {
    const ids = await submit(8);
    expect((await queue.counts()).waiting).to.equal(8);
    await redis.flushAll();
    expect((await queue.liveJobs(ids)).size).to.equal(0);

    await worker();
    // Without the reconciler nothing happens: the rows stay queued.
    await new Promise((r) => setTimeout(r, 1500));
    expect([...(await statuses(ids)).values()].every((s) => s === 'queued')).to.equal(true);

    const sched = await scheduler();
    await waitAllSigned(ids);
    await expectSignedOnce(ids);
    expect(sched.output()).to.include('sign jobs missing from the queue were enqueued again');
  });

  it('Redis restarted (no persistence) while jobs are being signed: every job is signed exactly once', async () => {
    await worker();
    await scheduler();
    const ids = await submit(16);
    // Let the run get going, then lose everything Redis held: waiting, active and delayed jobs alike.
    const deadline = Date.now() + 60_000;
    while ([...(await statuses(ids)).values()].filter((s) => s === 'signed').length < 3) {
      if (Date.now() > deadline) throw new Error('the run did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    await redis.restart();
    await waitAllSigned(ids, 120_000);
    await expectSignedOnce(ids);
  });
});
