import type { Knex } from 'knex';

/**
 * What was left of CAWG identity (migration 021):
 * - an organisation's people may take their identity certificates from its external CA through the same
 *   CSR-and-chain requests as its signing certificate: external_certificate_requests gains the purpose of a request
 *   (`signing`, the organisation's; `identity`, a person's), the person and the e-mail address asked for in the
 *   subjectAltName. A person's row outlives them (user_id set null) as history; its purpose keeps it out of the
 *   organisation's signing certificates;
 * - a template may sign as the person too: its `identity` ({roles}), applied when a request gives none;
 * - an operator may ask the scheduler for a new OCSP responder certificate now: certificate_requests of kind `ocsp`,
 *   which belong to no organisation.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('external_certificate_requests', (t) => {
    t.string('purpose', 16).notNullable().defaultTo('signing');
    t.uuid('user_id').nullable().references('users.id').onDelete('SET NULL');
    t.text('email').nullable();
    t.index(['user_id', 'created_at']);
  });
  await knex.raw("ALTER TABLE external_certificate_requests ADD CONSTRAINT external_certificate_requests_purpose CHECK (purpose IN ('signing', 'identity'))");

  for (const table of ['manifest_templates', 'manifest_template_versions']) {
    await knex.schema.alterTable(table, (t) => {
      t.jsonb('identity').nullable();
    });
  }

  await knex.raw('ALTER TABLE certificate_requests ALTER COLUMN org_id DROP NOT NULL');
  await knex.raw('ALTER TABLE certificate_requests DROP CONSTRAINT certificate_requests_kind');
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_kind CHECK (kind IN ('ensure', 'rotate', 'identity', 'revoke', 'ocsp'))");
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_org CHECK ((org_id IS NULL) = (kind = 'ocsp'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE certificate_requests DROP CONSTRAINT certificate_requests_org');
  await knex('certificate_requests').where({ kind: 'ocsp' }).delete();
  await knex.raw('ALTER TABLE certificate_requests DROP CONSTRAINT certificate_requests_kind');
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_kind CHECK (kind IN ('ensure', 'rotate', 'identity', 'revoke'))");
  await knex.raw('ALTER TABLE certificate_requests ALTER COLUMN org_id SET NOT NULL');
  for (const table of ['manifest_template_versions', 'manifest_templates']) {
    await knex.schema.alterTable(table, (t) => t.dropColumn('identity'));
  }
  await knex('external_certificate_requests').where({ purpose: 'identity' }).delete();
  await knex.schema.alterTable('external_certificate_requests', (t) => {
    t.dropIndex(['user_id', 'created_at']);
    t.dropColumn('email');
    t.dropColumn('user_id');
    t.dropColumn('purpose');
  });
}
