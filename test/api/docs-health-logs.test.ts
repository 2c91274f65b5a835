import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../api/app.js';
import { createKnex } from '../../shared/db/knex.js';
import { REDACTED_PATHS } from '../../shared/logger.js';
import { PERMISSIONS } from '../../shared/roles.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import type { SignQueue } from '../../shared/queue/types.js';
import { createFileStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';

/** These tests never sign; a queue that refuses makes any accidental use fail loudly. */
const unusedQueue: SignQueue = {
  kind: 'embedded',
  enqueue: () => Promise.reject(new Error('no queue in this test')),
  liveJobs: () => Promise.reject(new Error('no queue in this test')),
  requeue: () => Promise.reject(new Error('no queue in this test')),
  counts: () => Promise.reject(new Error('no queue in this test')),
  close: async () => undefined,
};
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, startTestApi, testConfig, type TestApi } from '../support/api.js';

describe('API description and health', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('serves Swagger UI at /docs and the document at /openapi.json', async () => {
    const ui = await request(api.app).get('/docs/').expect(200);
    expect(ui.text).to.contain('swagger-ui');
    const doc = (await request(api.app).get('/openapi.json').expect(200)).body;
    for (const [p, method] of [
      ['/auth/register', 'post'],
      ['/auth/login', 'post'],
      ['/auth/refresh', 'post'],
      ['/auth/me', 'get'],
      ['/org/users', 'get'],
      ['/org/users', 'post'],
      ['/org/users/{user_id}', 'patch'],
      ['/org/users/{user_id}', 'delete'],
      ['/org/api-keys', 'post'],
      ['/org/api-keys', 'get'],
      ['/org/api-keys/{key_id}', 'delete'],
      ['/health', 'get'],
    ]) {
      expect(doc.paths[p!], p).to.have.property(method!);
    }
    expect(doc.components.securitySchemes).to.have.keys('bearerAuth', 'apiKeyAuth');
    expect(doc.components.schemas.Error).to.be.an('object');
    // The role table in the description is rendered from the enforced table.
    for (const p of Object.values(PERMISSIONS)) expect(doc.info.description).to.contain(p.description);
  });

  it('reports database and Redis reachability', async () => {
    const res = await request(api.app).get('/health').expect(200);
    expect(res.body).to.deep.equal({ status: 'ok', database: 'ok', redis: 'ok' });
  });
});

describe('health with the database down', () => {
  it('answers 503', async () => {
    const config = testConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    const knex = createKnex(config);
    const app = createApp({ config, knex, logger: pino({ level: 'silent' }), pingRedis: async () => true, files: createFileStore(config), vault: createKeyVault(config), signQueue: unusedQueue, jobEvents: new LocalJobEvents() });
    const res = await request(app).get('/health').expect(503);
    expect(res.body.database).to.equal('unreachable');
    await knex.destroy();
    rmSync(config.dataDir, { recursive: true, force: true });
  });
});

describe('logs never contain credentials', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('passwords, tokens and API keys stay out of the log at debug level', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    const config = testConfig({ DATABASE_URL: db.url });
    const app = createApp({ config, knex: db.knex, logger, pingRedis: async () => false, files: createFileStore(config), vault: createKeyVault(config), signQueue: unusedQueue, jobEvents: new LocalJobEvents() });
    const password = 'very secret passphrase 42';
    const reg = await request(app).post('/auth/register').send({ email: 'log@example.com', password, org_name: 'L' }).expect(201);
    const key = (await request(app).post('/org/api-keys').set(bearer(reg.body.access_token)).send({ name: 'k' }).expect(201)).body.key;
    await request(app).get('/org/api-keys').set('X-API-Key', key);
    await request(app).post('/auth/refresh').send({ refresh_token: reg.body.refresh_token }).expect(200);
    await request(app).post('/auth/login').send({ email: 'log@example.com', password: 'wrong wrong wrong' }).expect(401);
    const all = lines.join('');
    expect(lines.length).to.be.greaterThan(3);
    rmSync(config.dataDir, { recursive: true, force: true });
    for (const secret of [password, reg.body.access_token, reg.body.refresh_token, key, config.jwtSecret]) {
      expect(all).to.not.contain(secret);
    }
  });
});
