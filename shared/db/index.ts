import { Model } from 'objection';
import type { Config } from '../config.js';
import { createKnex, pgliteDir, type Knex } from './knex.js';
import { migrateLatest } from './migrate.js';
import { ensurePgliteDataDir } from './pglite.js';

/** Opens the database, brings the schema up to date and binds the objection models to it. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Knex> {
  if (!config.databaseUrl) await ensurePgliteDataDir(pgliteDir(config));
  const knex = createKnex(config);
  await migrateLatest(knex);
  Model.knex(knex);
  return knex;
}

/**
 * Connects and binds the models without migrating: for processes started by a role that has already
 * migrated (the worker's sandbox processes). Several of those starting together would otherwise queue on
 * knex's migration lock, or fail on it.
 */
export function connectDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Knex {
  const knex = createKnex(config);
  Model.knex(knex);
  return knex;
}

export type { Knex };
