import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Loads migrations by import() so the same TypeScript files run under tsx on Postgres and PGlite,
 * without knex's own loader guessing at file extensions.
 */
class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  async getMigrations(): Promise<string[]> {
    const files = await readdir(MIGRATIONS_DIR);
    return files.filter((f) => /^\d{3}_[a-z0-9_]+\.ts$/.test(f)).sort();
  }
  getMigrationName(migration: string): string {
    return migration;
  }
  async getMigration(migration: string): Promise<MigrationModule> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, migration)).href)) as MigrationModule;
  }
}

/** Brings the schema up to date; safe to call from several processes (knex takes a migration lock). */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource: new DirectoryMigrationSource() })) as [number, string[]];
  return applied;
}

