import type { Knex } from 'knex';

/**
 * Pre-signed OCSP responses shared by every responder process (ocsp/response-store.ts): one row per CertID
 * (request hash algorithm, issuer and serial), for certificates this service issued. A responder copy that
 * finds a fresh row serves it instead of asking the vault for another signature. A revocation deletes the
 * serial's rows in its own transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ocsp_responses', (t) => {
    t.text('cert_id').primary(); // hex of the CertID's DER, as the request carried it
    t.text('serial').notNullable().index(); // canonical hex, as certificates.serial
    t.binary('der').notNullable(); // the whole OCSPResponse
    t.timestamp('produced_at', { useTz: true }).notNullable();
    t.timestamp('this_update', { useTz: true }).notNullable();
    t.timestamp('next_update', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ocsp_responses');
}
