import type { Knex } from 'knex';

/**
 * People who sign by name (CAWG identity assertions):
 * - users get a display name, the CN of their identity certificate;
 * - an identity certificate is a certificate of role `identity` issued by the sub-CA (so leaf.crl and the OCSP
 *   responder cover it like any other), linked to its user by identity_certificates; the link outlives the user
 *   (user_id set null), so a deleted user's certificate stays listed as revoked;
 * - certificate requests carry the user an identity certificate is asked for, and the revocations the web role asks
 *   the scheduler (the role holding the CA keys) to carry out: `identity` and `revoke` kinds;
 * - an API key may be bound to a user, so that it can sign as that person;
 * - a sign job may sign as a person too (a cawg.identity assertion beside the organisation's claim signature): who,
 *   with which roles; the signed file records the identity certificate it was signed with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('name').nullable();
  });
  await knex.raw('ALTER TABLE certificates DROP CONSTRAINT certificates_role_check');
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_role_check CHECK (role IN ('root', 'sub_ca', 'leaf', 'tsa', 'ocsp', 'identity'))`);

  await knex.schema.createTable('identity_certificates', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('user_id').nullable().references('users.id').onDelete('SET NULL');
    t.uuid('certificate_id').notNullable().unique().references('certificates.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.index(['user_id', 'created_at']);
    t.index(['org_id', 'created_at']);
  });

  await knex.schema.alterTable('certificate_requests', (t) => {
    t.uuid('user_id').nullable().references('users.id').onDelete('SET NULL');
    t.string('revocation_reason', 32).nullable();
  });
  await knex.raw('ALTER TABLE certificate_requests DROP CONSTRAINT certificate_requests_kind');
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_kind CHECK (kind IN ('ensure', 'rotate', 'identity', 'revoke'))");

  await knex.schema.alterTable('api_keys', (t) => {
    t.uuid('user_id').nullable().references('users.id').onDelete('CASCADE');
  });

  await knex.schema.alterTable('sign_jobs', (t) => {
    // The person the job signs as; a job whose person is deleted before it runs fails (their certificate is revoked).
    t.uuid('identity_user_id').nullable().references('users.id').onDelete('SET NULL');
    t.jsonb('identity_roles').nullable();
  });
  await knex.schema.alterTable('signed_files', (t) => {
    t.text('identity_certificate_serial').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('signed_files', (t) => t.dropColumn('identity_certificate_serial'));
  await knex.schema.alterTable('sign_jobs', (t) => {
    t.dropColumn('identity_roles');
    t.dropColumn('identity_user_id');
  });
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('user_id'));
  await knex.raw('ALTER TABLE certificate_requests DROP CONSTRAINT certificate_requests_kind');
  await knex('certificate_requests').whereIn('kind', ['identity', 'revoke']).delete();
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_kind CHECK (kind IN ('ensure', 'rotate'))");
  await knex.schema.alterTable('certificate_requests', (t) => {
    t.dropColumn('revocation_reason');
    t.dropColumn('user_id');
  });
  await knex.schema.dropTable('identity_certificates');
  await knex('certificates').where({ role: 'identity' }).delete();
  await knex.raw('ALTER TABLE certificates DROP CONSTRAINT certificates_role_check');
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_role_check CHECK (role IN ('root', 'sub_ca', 'leaf', 'tsa', 'ocsp'))`);
  await knex.schema.alterTable('users', (t) => t.dropColumn('name'));
}
