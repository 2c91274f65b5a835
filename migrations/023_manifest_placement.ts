import type { Knex } from 'knex';

/**
 * Where a signed file's manifest store goes: `embedded` in the file (as before), or `remote`, kept only in the
 * manifest repository and named by the file (XMP dcterms:provenance) and by its download's Link header.
 *
 * - sign_jobs.manifest_placement: the job's choice (the request's, else its template's, else embedded).
 * - manifest_templates / manifest_template_versions .manifest_placement: a template's choice; null: embedded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sign_jobs', (t) => {
    t.text('manifest_placement').notNullable().defaultTo('embedded');
  });
  for (const table of ['manifest_templates', 'manifest_template_versions']) {
    await knex.schema.alterTable(table, (t) => {
      t.text('manifest_placement');
    });
  }
  for (const table of ['sign_jobs', 'manifest_templates', 'manifest_template_versions']) {
    await knex.raw(`ALTER TABLE ?? ADD CONSTRAINT ?? CHECK (manifest_placement IN ('embedded', 'remote'))`, [table, `${table}_manifest_placement_check`]);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['manifest_template_versions', 'manifest_templates', 'sign_jobs']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('manifest_placement'));
  }
}
