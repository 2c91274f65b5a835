import type { Knex } from 'knex';

/**
 * Organisations' certificates from an external CA (shared/pki/external-certificates.ts): one row per request, from
 * asked (the scheduler creates the vault key and the CSR) through pending (the CSR is with the CA) to accepted (the
 * CA's chain checked and stored), and, once the CA says so, revoked. Rows are kept: they are the history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('external_certificate_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.jsonb('subject').notNullable(); // the subject asked for: { CN, O, C, OU?, L?, ST? }
    t.string('key_name', 128).notNullable();
    t.string('status', 16).notNullable().defaultTo('creating'); // creating | pending | accepted | failed
    t.text('csr_pem').nullable();
    t.string('error_code', 64).nullable();
    t.text('error_message').nullable();
    // The accepted certificate: leaf first, then the intermediates the CA gave (no root).
    t.text('chain_pem').nullable();
    t.string('serial', 128).nullable();
    t.text('certificate_subject').nullable();
    t.text('certificate_issuer').nullable();
    t.timestamp('not_before', { useTz: true }).nullable();
    t.timestamp('not_after', { useTz: true }).nullable();
    t.string('fingerprint_sha256', 64).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('accepted_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.string('revocation_reason', 32).nullable();
    t.timestamp('revocation_recorded_at', { useTz: true }).nullable();
    t.index(['org_id', 'created_at']);
  });
  await knex.raw("CREATE INDEX external_certificate_requests_creating ON external_certificate_requests (created_at) WHERE status = 'creating'");
  await knex.raw("ALTER TABLE external_certificate_requests ADD CONSTRAINT external_certificate_requests_status CHECK (status IN ('creating', 'pending', 'accepted', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('external_certificate_requests');
}
