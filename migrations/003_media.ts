import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('uploads', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.uuid('api_key_id').references('api_keys.id').onDelete('SET NULL');
    t.text('filename').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('storage_key').notNullable();
    // Millisecond precision, so a page cursor (a JS Date) compares exactly.
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.index(['org_id', 'created_at']);
  });

  await knex.schema.createTable('sign_jobs', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('upload_id').notNullable().references('uploads.id').onDelete('CASCADE');
    t.uuid('user_id').references('users.id').onDelete('SET NULL');
    t.uuid('api_key_id').references('api_keys.id').onDelete('SET NULL');
    t.text('idempotency_key');
    t.jsonb('manifest').notNullable();
    t.text('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('error_code');
    t.text('error_message');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['org_id', 'idempotency_key']);
    t.index(['org_id', 'status', 'created_at']);
  });

  await knex.raw(`ALTER TABLE sign_jobs ADD CONSTRAINT sign_jobs_status_check CHECK (status IN ('queued', 'processing', 'signed', 'failed'))`);

  // One signed file per job at most: the unique job_id makes a retried or re-delivered job idempotent.
  await knex.schema.createTable('signed_files', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('organisations.id').onDelete('CASCADE');
    t.uuid('job_id').notNullable().unique().references('sign_jobs.id').onDelete('CASCADE');
    t.text('filename').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('storage_key').notNullable();
    t.text('certificate_serial').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['sha256']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('signed_files');
  await knex.schema.dropTable('sign_jobs');
  await knex.schema.dropTable('uploads');
}
