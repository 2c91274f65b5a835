import type { Knex } from 'knex';

/**
 * The manifest repository (Durable Content Credentials): every signed file's C2PA manifest store, public by its
 * active manifest's id when the file is discoverable, and the choice of discoverability:
 *
 * - organisations.discoverable: the organisation's default (on).
 * - manifest_templates / manifest_template_versions .discoverable and sign_jobs.discoverable: a template's and a
 *   request's choice; null follows the organisation. The job records the choice in force when it was asked for
 *   (request over template); a job without one follows the organisation's setting, now and when it changes.
 * - manifest_stores: the JUMBF bytes (application/c2pa) keyed by the active manifest label (urn:c2pa:...), with the
 *   discoverability in force (kept up to date when the organisation's setting changes).
 * - public_verifications: what the public verify page showed for a file hash (its permalink); nothing else about
 *   the dropped file is kept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organisations', (t) => {
    t.boolean('discoverable').notNullable().defaultTo(true);
  });
  for (const table of ['manifest_templates', 'manifest_template_versions', 'sign_jobs']) {
    await knex.schema.alterTable(table, (t) => {
      t.boolean('discoverable');
    });
  }
  await knex.schema.createTable('manifest_stores', (t) => {
    t.text('manifest_id').primary();
    t.uuid('signed_file_id').notNullable().unique().references('signed_files.id').onDelete('CASCADE');
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.binary('store').notNullable();
    t.boolean('discoverable').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['org_id']);
  });
  await knex.schema.createTable('public_verifications', (t) => {
    t.text('sha256').primary();
    t.jsonb('result').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('public_verifications');
  await knex.schema.dropTable('manifest_stores');
  for (const table of ['sign_jobs', 'manifest_template_versions', 'manifest_templates']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('discoverable'));
  }
  await knex.schema.alterTable('organisations', (t) => t.dropColumn('discoverable'));
}
