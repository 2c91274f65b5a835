import { Model } from 'objection';
import type { Config } from '../config.js';
import { createKnex, type Knex } from './knex.js';
import { migrateLatest } from './migrate.js';

/** Opens the database, brings the schema up to date and binds the objection models to it. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Knex> {
  const knex = createKnex(config);
  await migrateLatest(knex);
  Model.knex(knex);
  return knex;
}

export type { Knex };
