import type { Knex } from 'knex';

/**
 * Organisations' own trust anchors (a partner agency's private CA), added by their admins at /org/trust-anchors:
 * they apply to that organisation's signed-in verifications only. The certificate is kept as PEM, with what the
 * listing shows (subject, SHA-256 fingerprint, expiry) taken from it once, when it is added. One certificate per
 * organisation at most once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisation_trust_anchors', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.text('label');
    t.text('pem').notNullable();
    t.text('subject').notNullable();
    t.string('fingerprint_sha256', 64).notNullable();
    t.timestamp('not_after', { useTz: true }).notNullable();
    t.uuid('added_by').references('users.id').onDelete('SET NULL');
    t.timestamp('added_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.unique(['org_id', 'fingerprint_sha256']);
  });
  await knex.raw("ALTER TABLE organisation_trust_anchors ADD CONSTRAINT organisation_trust_anchors_fingerprint CHECK (fingerprint_sha256 ~ '^[0-9a-f]{64}$')");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('organisation_trust_anchors');
}
