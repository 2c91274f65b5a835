import type { Knex } from 'knex';

/**
 * Webhooks (issue 23): organisations' endpoints, the outbox of events (written in the same transaction as the change
 * each describes, so none is lost when Redis or a worker dies), one delivery per event and endpoint, and the log of
 * every attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.string('description', 200).notNullable().defaultTo('');
    // AES-256-GCM under the service's webhook key (shared/webhooks/secrets.ts): deliveries must sign with it.
    t.text('secret_enc').notNullable();
    t.text('previous_secret_enc').nullable();
    t.timestamp('previous_secret_expires_at', { useTz: true }).nullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason').nullable();
    t.timestamp('disabled_at', { useTz: true }).nullable();
    // First failed attempt since the last success: an endpoint failing for long is disabled.
    t.timestamp('failing_since', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['org_id']);
  });
  await knex.schema.createTable('webhook_events', (t) => {
    t.string('id', 40).primary(); // evt_ + 32 hex
    t.uuid('org_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    // The exact body every attempt sends (signatures cover these bytes).
    t.text('body').notNullable();
    // Events that must be recorded once only (a certificate close to expiry).
    t.string('dedupe_key', 200).nullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.string('event_id', 40).notNullable().references('id').inTable('webhook_events').onDelete('CASCADE');
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.uuid('org_id').notNullable();
    t.string('status', 16).notNullable().defaultTo('pending'); // pending | delivered | failed
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('response_status').nullable();
    t.integer('duration_ms').nullable();
    t.text('error').nullable();
    // Handed to the queue (the relay sets it; null: not yet, or to be handed again after a redelivery).
    t.timestamp('enqueued_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['event_id', 'endpoint_id']);
    t.index(['endpoint_id', 'created_at']);
  });
  await knex.raw("CREATE INDEX webhook_deliveries_to_enqueue ON webhook_deliveries (created_at) WHERE status = 'pending' AND enqueued_at IS NULL");
  await knex.raw("CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending'");
  await knex.raw("ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending', 'delivered', 'failed'))");
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.timestamp('at', { useTz: true }).notNullable();
    t.string('outcome', 16).notNullable(); // delivered | failed
    t.integer('response_status').nullable();
    t.integer('duration_ms').notNullable();
    t.text('error').nullable();
    t.index(['delivery_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhook_endpoints');
}
