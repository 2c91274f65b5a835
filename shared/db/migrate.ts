import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { PROJECT_ROOT } from '../paths.js';

const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');
/** migrations/ beside the running code: the .ts files under tsx, their .js in dist/migrations when compiled. */
const RUNNING_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const RUNNING_EXT = path.extname(fileURLToPath(import.meta.url));

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Loads migrations by import() so the same files run under tsx and compiled, on Postgres and PGlite, without knex's
 * own loader guessing at file extensions. A migration is named by its .ts file (`001_init.ts`) whichever runs: that
 * is the name knex_migrations holds, so a database migrated by one is current for the other.
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
    const file = path.join(RUNNING_DIR, `${path.basename(migration, '.ts')}${RUNNING_EXT}`);
    return (await import(pathToFileURL(file).href)) as MigrationModule;
  }
}

/** Brings the schema up to date; safe to call from several processes (knex takes a migration lock). */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource: new DirectoryMigrationSource() })) as [number, string[]];
  return applied;
}

