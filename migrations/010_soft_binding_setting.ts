import type { Knex } from 'knex';

/**
 * Whether signing fingerprints a file (its c2pa.soft-binding assertion and its row in the soft-binding index), apart
 * from whether the file is discoverable (migration 008): an organisation that wants no lookup by content need not
 * pay for the fingerprint.
 *
 * - organisations.soft_binding: the organisation's default (on).
 * - manifest_templates / manifest_template_versions .soft_binding and sign_jobs.soft_binding: a template's and a
 *   request's choice; null follows the organisation's setting when the job is signed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organisations', (t) => {
    t.boolean('soft_binding').notNullable().defaultTo(true);
  });
  for (const table of ['manifest_templates', 'manifest_template_versions', 'sign_jobs']) {
    await knex.schema.alterTable(table, (t) => {
      t.boolean('soft_binding');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sign_jobs', 'manifest_template_versions', 'manifest_templates']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('soft_binding'));
  }
  await knex.schema.alterTable('organisations', (t) => t.dropColumn('soft_binding'));
}
