import type { Knex } from 'knex';

/**
 * Failed sign-ins per account (api/auth/login-throttle.ts), so password guessing against one account is slowed
 * whatever addresses it comes from. Keyed by the SHA-256 of the normalised e-mail, for addresses with and without an
 * account alike (the answer must not tell which), so the table holds no e-mail address.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_failures', (t) => {
    t.string('email_key', 64).primary();
    t.integer('failures').notNullable();
    t.timestamp('window_started_at', { useTz: true }).notNullable();
    t.index(['window_started_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('login_failures');
}
