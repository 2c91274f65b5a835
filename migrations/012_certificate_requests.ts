import type { Knex } from 'knex';

/**
 * Requests for organisations' signing certificates (shared/pki/certificate-requests.ts): the web and worker roles
 * ask, the scheduler (the role that holds the CA keys) issues. Written in the same transaction as what asks for it
 * (a registration, a rename), so no request is lost when a process dies.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('certificate_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('kind', 16).notNullable(); // ensure | rotate
    t.string('status', 16).notNullable().defaultTo('pending'); // pending | working | done | failed
    t.uuid('certificate_id').nullable().references('id').inTable('certificates');
    t.string('error_code', 64).nullable();
    t.text('error_message').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('claimed_at', { useTz: true }).nullable();
    t.timestamp('done_at', { useTz: true }).nullable();
  });
  await knex.raw("CREATE INDEX certificate_requests_open ON certificate_requests (created_at) WHERE status IN ('pending', 'working')");
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_kind CHECK (kind IN ('ensure', 'rotate'))");
  await knex.raw("ALTER TABLE certificate_requests ADD CONSTRAINT certificate_requests_status CHECK (status IN ('pending', 'working', 'done', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('certificate_requests');
}
