import type { Knex } from 'knex';

/**
 * The delivery log is paged by a cursor (created_at, id) that carries a JS Date: millisecond precision, so that a
 * page's last row compares exactly with the cursor made from it (as the other paged tables, 003_media.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries ALTER COLUMN created_at TYPE timestamptz(3)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries ALTER COLUMN created_at TYPE timestamptz');
}
