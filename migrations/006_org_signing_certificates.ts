import type { Knex } from 'knex';

/**
 * One signing identity per organisation: its leaf certificates carry the organisation (null for the service's own
 * CA, TSA and service leaf certificates), and every signed file records the subject it was signed as.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('certificates', (t) => {
    t.uuid('org_id').references('organisations.id');
    // "The organisation's current certificate": newest usable leaf of the organisation.
    t.index(['org_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_org_leaf_check CHECK (org_id IS NULL OR role = 'leaf')`);
  await knex.schema.alterTable('signed_files', (t) => {
    t.text('certificate_subject');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signed_files', (t) => t.dropColumn('certificate_subject'));
  await knex.raw('ALTER TABLE certificates DROP CONSTRAINT certificates_org_leaf_check');
  await knex.schema.alterTable('certificates', (t) => {
    t.dropIndex(['org_id', 'created_at']);
    t.dropColumn('org_id');
  });
}
