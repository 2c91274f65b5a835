import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import type { Config } from '../config.js';

// Postgres BIGINT (int8) comes back as a string by default; our counters fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/** Postgres when DATABASE_URL is set; otherwise PGlite (the same SQL dialect) in the data directory. */
export function createKnex(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Knex {
  if (config.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: config.databaseUrl,
      pool: { min: 0, max: 10 },
    });
  }
  const dir = path.join(config.dataDir, 'pgdata');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return knexFactory({ client: ClientPgLite, dialect: 'postgres', connection: { filename: dir } });
}

export type { Knex };
