import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../api/app.js';
import { startIssuanceJob } from '../../scheduler/issuance-job.js';
import { PasswordPool, passwordPoolOptions } from '../../api/auth/password-pool.js';
import { VerifyPool, verifyPoolOptions } from '../../api/media/verify-pool.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { BullMqSignQueue } from '../../shared/queue/bullmq-sign-queue.js';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { RedisJobEvents } from '../../shared/queue/job-events.js';
import { createFileStore } from '../../shared/storage/index.js';
import { createKeyVault, type KeyVault } from '../../shared/vault/index.js';
import { createPkiEvents } from '../../shared/pki/pki-events.js';
import { createRedis, pingWithin } from '../../shared/redis.js';
import { createPgliteTestDatabase, createTestDatabase, type TestDatabase } from './database.js';

export interface TestApi {
  app: Express;
  config: Config;
  db: TestDatabase;
  /** The app's verification pool and password threads (closed by close()). */
  verifyPool: VerifyPool;
  /** The app's pool for uploads' pixel checks (closed by close()). */
  uploadCheckPool: VerifyPool;
  passwords: PasswordPool;
  close(): Promise<void>;
}

/** The Redis the suite uses; .ci/run makes sure one answers here. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Test configuration: a temp data dir, a random JWT secret, cheap bcrypt, a private queue prefix, no OCSP fronts. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-data-')),
    JWT_SECRET: `test-secret-${Math.random().toString(36).slice(2)}-${Date.now()}`,
    BCRYPT_ROUNDS: '4',
    AUTH_RATE_LIMIT: '10000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The OCSP role answers in its own process; its front processes are tested where they are the subject.
    OCSP_PROCESSES: '0',
    ...env,
  });
}

/**
 * The real app on a fresh Postgres database (`database: 'pglite'`: on PGlite, as `npm start` runs it), queueing on
 * real Redis/BullMQ under a private prefix. Beside it, as in every deployment, the scheduler's certificate issuance
 * (organisations' certificates are issued there, never by the web or worker roles); `issuer: false` leaves it out.
 * `logger`: the API's and its pools' (default: at LOG_LEVEL).
 */
export async function startTestApi(
  env: Record<string, string> = {},
  options: { issuer?: boolean; vault?: KeyVault; issuerVault?: KeyVault; logger?: Logger; database?: 'postgres' | 'pglite' } = {},
): Promise<TestApi> {
  const db = options.database === 'pglite' ? await createPgliteTestDatabase() : await createTestDatabase();
  const config = testConfig({ DATABASE_URL: db.url, ...env });
  // The data directory testConfig made is this API's to remove; one the caller gave is the caller's.
  const ownsDataDir = env.DATA_DIR === undefined;
  const issuerVault = options.issuerVault ?? createKeyVault(config);
  const pkiEvents = createPkiEvents(config, db.knex);
  const issuer = options.issuer === false ? undefined : startIssuanceJob({ knex: db.knex, vault: issuerVault, config, events: pkiEvents }, createLogger(config.logLevel, 'issuance'));
  const signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  const jobEvents = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: true });
  const redis = createRedis(config.redisUrl, { lazyConnect: true });
  redis.connect().catch(() => undefined);
  const logger = options.logger ?? createLogger(config.logLevel, 'test');
  const verifyPool = new VerifyPool(verifyPoolOptions(config, 'verify', logger));
  const uploadCheckPool = new VerifyPool(verifyPoolOptions(config, 'uploads', logger));
  const passwords = new PasswordPool(passwordPoolOptions(config));
  const app = createApp({
    config,
    verifyPool,
    uploadCheckPool,
    passwords,
    knex: db.knex,
    logger,
    pingRedis: () => pingWithin(redis),
    files: createFileStore(config),
    vault: options.vault ?? createKeyVault(config),
    signQueue,
    jobEvents,
  });
  return {
    app,
    config,
    db,
    verifyPool,
    uploadCheckPool,
    passwords,
    async close() {
      await issuer?.stop();
      await pkiEvents.close();
      await Promise.all([verifyPool.close(), uploadCheckPool.close(), passwords.close()]);
      redis.disconnect();
      await signQueue.close();
      await jobEvents.close();
      await db.drop();
      if (ownsDataDir) rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

export interface Account {
  email: string;
  password: string;
  access: string;
  refresh: string;
  userId: string;
  orgId: string;
}

/** Registers a new organisation and its admin through the API. */
export async function registerAccount(app: Express, orgName = 'Org'): Promise<Account> {
  counter += 1;
  const email = `user${counter}-${Date.now()}@example.com`;
  const password = 'a long enough passphrase';
  const res = await request(app).post('/auth/register').send({ email, password, org_name: orgName }).expect(201);
  const me = await request(app).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
  return { email, password, access: res.body.access_token, refresh: res.body.refresh_token, userId: me.body.user_id, orgId: me.body.org_id };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Adds a user with `role` to the admin's organisation through the API and signs them in. */
export async function addOrgUser(app: Express, admin: Account, role: string): Promise<{ userId: string; access: string; email: string; orgId: string; role: string; created: Record<string, unknown> }> {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
  const password = 'a long enough passphrase';
  const res = await request(app).post('/org/users').set(bearer(admin.access)).send({ email, password, role }).expect(201);
  const login = await request(app).post('/auth/login').send({ email, password }).expect(200);
  return { userId: res.body.user_id, access: login.body.access_token, email, orgId: res.body.org_id, role: res.body.role, created: res.body };
}

/** A supertest parser that keeps a response body as its bytes (a Buffer), whatever its type. */
export function bytesBody(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const parts: Buffer[] = [];
  res.on('data', (d: Buffer) => parts.push(d));
  res.on('end', () => done(null, Buffer.concat(parts)));
}

/** A file from the API (a signed file's download_url), as bytes, with the account's token. */
export async function downloadFile(app: Express, acc: Pick<Account, 'access'>, url: string): Promise<Buffer> {
  const res = await request(app).get(new URL(url).pathname).set(bearer(acc.access)).buffer(true).parse(bytesBody).expect(200);
  return res.body as Buffer;
}

/** Uploads a file and asks for it to be signed; resolves with the job id. */
export async function submitSign(app: Express, acc: Pick<Account, 'access'>, bytes: Buffer, filename: string, manifest: Record<string, unknown> = { title: filename, creator: 'Jane Doe' }): Promise<string> {
  const up = await request(app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', bytes, filename).expect(201);
  const job = await request(app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest }).expect(202);
  return job.body.job_id as string;
}

/** The job's view once it has left queued and processing (waiting with ?wait=20, up to two minutes). */
export async function waitForJob(app: Express, acc: Pick<Account, 'access'>, jobId: string) {
  for (let i = 0; i < 6; i += 1) {
    const res = await request(app).get(`/v1/media/jobs/${jobId}?wait=20`).set(bearer(acc.access)).expect(200);
    if (!['queued', 'processing'].includes(res.body.status)) return res.body;
  }
  throw new Error(`job ${jobId} did not finish`);
}

/** Empties the test API's sign queue (jobs queued by a suite that runs them itself, not through a worker). */
export async function clearSignQueue(config: Pick<Config, 'redisUrl' | 'queuePrefix'>): Promise<void> {
  const queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: config.redisUrl }, prefix: config.queuePrefix });
  await queue.obliterate({ force: true });
  await queue.close();
}
