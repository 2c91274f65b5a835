import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { openDatabase } from '../../shared/db/index.js';

/** The server tests create their throwaway databases on; .ci/run points it at its own Postgres. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Names the run's migrated database (suite-setup.ts), which test files' databases are copies of. */
export const TEMPLATE_DATABASE_VARIABLE = 'MSS_TEST_TEMPLATE_DATABASE';

/** The connection string of database `name` on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestDatabase {
  /** Postgres's connection string; empty for PGlite, which only `knex` opens (DATABASE_URL empty: unset). */
  url: string;
  knex: Knex;
  drop(): Promise<void>;
}

/** A fresh, migrated Postgres database for one test file (a copy of the run's template); dropped again by drop(). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  // A copy of the run's migrated template when there is one (openDatabase then finds nothing to migrate).
  const template = process.env[TEMPLATE_DATABASE_VARIABLE];
  await admin.raw(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  const knex = await openDatabase({ databaseUrl: url, dataDir: '/nonexistent' });
  return {
    url,
    knex,
    async drop() {
      await knex.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}

/** A fresh, migrated PGlite database in a temp folder, as `npm start` opens its own; removed by drop(). */
export async function createPgliteTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'test-pglite-'));
  const knex = await openDatabase({ databaseUrl: undefined, dataDir });
  return {
    url: '',
    knex,
    async drop() {
      await knex.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
