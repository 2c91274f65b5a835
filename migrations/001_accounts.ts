import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisations', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    // Stored lower-cased, so the unique index is case-insensitive.
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['org_id']);
  });
  await knex.raw(`ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('admin', 'signer', 'viewer'))`);

  // One row per refresh token issued; rotation marks a row used, reuse revokes the whole family.
  await knex.schema.createTable('refresh_tokens', (t) => {
    t.uuid('jti').primary();
    t.uuid('family_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['family_id']);
    t.index(['user_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // First characters of the key, shown in listings so people can tell keys apart.
    t.text('prefix').notNullable();
    // SHA-256 of the whole key: the key is 256 random bits, so a slow hash adds nothing but latency.
    t.text('key_hash').notNullable().unique();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['org_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('refresh_tokens');
  await knex.schema.dropTable('users');
  await knex.schema.dropTable('organisations');
}
