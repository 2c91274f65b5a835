import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import type { Config } from '../config.js';
import { openPglite } from './pglite.js';

/**
 * knex-pglite names a response's command after knex's method, and knex's method for a delete is `del`: the Postgres
 * dialect then does not know the command and answers the driver's result object where `pg` gives the number of rows
 * deleted, so `(await q.delete()) > 0` was never true on PGlite. Named DELETE here, a delete answers its count on both.
 */
class PgLiteClient extends (ClientPgLite as unknown as new (config: Knex.Config) => { processResponse(obj: { method?: string }, runner: unknown): unknown }) {
  override processResponse(obj: { method?: string }, runner: unknown): unknown {
    return super.processResponse(obj.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
}

// Postgres BIGINT (int8) comes back as a string by default; our counters fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/** Postgres when DATABASE_URL is set; otherwise PGlite (the same SQL dialect) in the data directory, created already (ensurePgliteDataDir). */
export function createKnex(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Knex {
  if (config.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: config.databaseUrl,
      pool: { min: 0, max: 10 },
    });
  }
  const dir = pgliteDir(config);
  // Created here when not yet (in this process, then): openDatabase creates it in a process of its own first.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return knexFactory({ client: PgLiteClient as unknown as typeof ClientPgLite, dialect: 'postgres', connection: { pglite: openPglite(dir) } as Knex.StaticConnectionConfig });
}

/** Where the embedded database lives: DATA_DIR/pgdata. */
export function pgliteDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'pgdata');
}

export type { Knex };
