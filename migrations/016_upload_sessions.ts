import type { Knex } from 'knex';

/**
 * Resumable upload sessions (tus 1.0): one row per upload in progress, owned by an organisation. The bytes live in the
 * resumable store (DATA_DIR/resumable or Blob Storage) under the session's id; the row is written before any byte and
 * removed after the last one, so no bytes are ever without an owner. A completed session points to the upload it became.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upload_sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.uuid('api_key_id').references('api_keys.id').onDelete('SET NULL');
    t.text('filename').notNullable();
    // The declared Upload-Length.
    t.bigInteger('size').notNullable();
    t.text('status').notNullable().defaultTo('receiving');
    t.uuid('upload_id').references('uploads.id').onDelete('SET NULL');
    // The lease one request holds while it reads or writes the bytes (tus's lock), shared by every API process.
    t.text('lock_token');
    t.timestamp('lock_until', { useTz: true });
    // Set by a request waiting for the lease: the holder lets go (a stale PATCH from a dropped connection).
    t.boolean('release_requested').notNullable().defaultTo(false);
    // Moved on by every PATCH: an upload is abandoned UPLOAD_EXPIRY_HOURS after its last activity.
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });
  await knex.raw("ALTER TABLE upload_sessions ADD CONSTRAINT upload_sessions_status CHECK (status IN ('receiving', 'completing', 'completed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('upload_sessions');
}
