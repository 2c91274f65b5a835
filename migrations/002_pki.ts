import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every certificate the service issued; the revocation columns feed the CRLs and the OCSP responder.
  await knex.schema.createTable('certificates', (t) => {
    t.uuid('id').primary();
    t.text('serial').notNullable().unique(); // canonical hex (shared/pki/serial.ts): lowercase, no sign octet
    t.text('role').notNullable(); // root | sub_ca | leaf | tsa
    t.uuid('issuer_id').references('certificates.id');
    t.text('key_name').notNullable();
    t.text('subject').notNullable();
    t.text('issuer').notNullable();
    t.timestamp('not_before', { useTz: true }).notNullable();
    t.timestamp('not_after', { useTz: true }).notNullable();
    t.binary('der').notNullable();
    t.text('fingerprint_sha256').notNullable().unique();
    t.timestamp('revoked_at', { useTz: true });
    t.text('revocation_reason');
    // clock_timestamp(), not now(): rows are inserted under an advisory lock, so this orders them by
    // issuance even when a later-started transaction got the lock first ("newest leaf" relies on it).
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.index(['role', 'created_at']);
    t.index(['issuer_id', 'serial']);
  });
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_role_check CHECK (role IN ('root', 'sub_ca', 'leaf', 'tsa'))`);
  await knex.raw(`ALTER TABLE certificates ADD CONSTRAINT certificates_revocation_check CHECK ((revoked_at IS NULL) = (revocation_reason IS NULL))`);

  // Every CRL issued, so CRL numbers only ever increase and any host can serve the latest.
  await knex.schema.createTable('crls', (t) => {
    t.uuid('id').primary();
    t.uuid('issuer_id').notNullable().references('certificates.id');
    t.bigInteger('crl_number').notNullable();
    t.timestamp('this_update', { useTz: true }).notNullable();
    t.timestamp('next_update', { useTz: true }).notNullable();
    t.binary('der').notNullable();
    // Publication order across issuers (a new sub-CA starts its own numbering); see certificates.created_at.
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.unique(['issuer_id', 'crl_number']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('crls');
  await knex.schema.dropTable('certificates');
}
