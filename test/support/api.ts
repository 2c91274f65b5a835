import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApi {
  app: Express;
  config: Config;
  db: TestDatabase;
  close(): Promise<void>;
}

/** Test configuration: a temp data dir, a random JWT secret and cheap bcrypt, over `env`. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-data-')),
    JWT_SECRET: `test-secret-${Math.random().toString(36).slice(2)}-${Date.now()}`,
    BCRYPT_ROUNDS: '4',
    AUTH_RATE_LIMIT: '10000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
}

/** The real app on a fresh Postgres database. */
export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const db = await createTestDatabase();
  const config = testConfig({ DATABASE_URL: db.url, ...env });
  const app = createApp({ config, knex: db.knex, logger: createLogger(config.logLevel, 'test'), pingRedis: async () => false });
  return { app, config, db, close: () => db.drop() };
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
