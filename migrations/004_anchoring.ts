import type { Knex } from 'knex';

/**
 * On-chain anchoring of signed files (shared/chain, scheduler/anchor-job.ts):
 *
 * - anchor_leaves: one row per signed file, written in the same transaction as the signed file; batch_id is
 *   null while the file waits in the pending batch, then set once (with its index and Merkle path) when a
 *   batch is sealed, so a file is in exactly one batch.
 * - anchor_batches: a sealed Merkle tree (root) and, once sent, its nonce; confirmed with the transaction,
 *   block and time that anchored it.
 * - anchor_transactions: every transaction signed for a batch (first send, fee bumps, re-sends with a new
 *   nonce), recorded before it is broadcast, so a crash never loses track of a transaction on the wire.
 * - sign_jobs gains the states anchoring (batch sealed, transaction on its way) and anchored (confirmed).
 */
const STATUSES_BEFORE = ['queued', 'processing', 'signed', 'failed'];
const STATUSES_AFTER = ['queued', 'processing', 'signed', 'anchoring', 'anchored', 'failed'];

const statusCheck = (statuses: string[]) =>
  `ALTER TABLE sign_jobs ADD CONSTRAINT sign_jobs_status_check CHECK (status IN (${statuses.map((s) => `'${s}'`).join(', ')}))`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sign_jobs DROP CONSTRAINT sign_jobs_status_check');
  await knex.raw(statusCheck(STATUSES_AFTER));

  await knex.schema.createTable('anchor_batches', (t) => {
    t.bigIncrements('id').primary();
    t.text('status').notNullable(); // sealed | sent | confirmed
    t.text('root').notNullable(); // 64 lowercase hex
    t.integer('leaf_count').notNullable();
    // Set on the first send.
    t.bigInteger('chain_id');
    t.text('from_address');
    t.bigInteger('nonce');
    // Set when confirmed: the transaction that anchored the root.
    t.text('tx_hash');
    t.bigInteger('block_number');
    t.text('block_hash');
    t.timestamp('block_time', { useTz: true });
    t.integer('send_count').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('sealed_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('confirmed_at', { useTz: true });
    t.index(['status', 'id']);
  });
  await knex.raw(`ALTER TABLE anchor_batches ADD CONSTRAINT anchor_batches_status_check CHECK (status IN ('sealed', 'sent', 'confirmed'))`);
  await knex.raw(`ALTER TABLE anchor_batches ADD CONSTRAINT anchor_batches_root_check CHECK (root ~ '^[0-9a-f]{64}$')`);
  await knex.raw(
    `ALTER TABLE anchor_batches ADD CONSTRAINT anchor_batches_confirmed_check CHECK ((status = 'confirmed') = (tx_hash IS NOT NULL AND block_number IS NOT NULL AND block_hash IS NOT NULL))`,
  );
  await knex.raw(`ALTER TABLE anchor_batches ADD CONSTRAINT anchor_batches_sent_check CHECK ((status = 'sealed') = (nonce IS NULL))`);

  await knex.schema.createTable('anchor_transactions', (t) => {
    t.bigIncrements('id').primary();
    // Null for a filler: an empty self-transaction that closes a nonce gap so later anchors can be mined.
    t.bigInteger('batch_id').references('anchor_batches.id').onDelete('CASCADE');
    t.text('reason').notNullable(); // first | fee_bump | new_nonce | filler
    t.bigInteger('chain_id').notNullable();
    t.text('from_address').notNullable();
    t.bigInteger('nonce').notNullable();
    t.text('tx_hash').notNullable().unique();
    t.text('raw').notNullable();
    t.bigInteger('gas_limit').notNullable();
    t.text('max_fee_per_gas');
    t.text('max_priority_fee_per_gas');
    t.text('gas_price');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('broadcast_at', { useTz: true });
    t.index(['batch_id', 'id']);
  });

  await knex.schema.createTable('anchor_leaves', (t) => {
    t.bigIncrements('id').primary(); // arrival order: batches take the oldest pending files first
    t.text('sha256').notNullable();
    // Kept when the file is deleted (an organisation removed): its proof stays valid and public.
    t.uuid('signed_file_id').unique().references('signed_files.id').onDelete('SET NULL');
    t.bigInteger('batch_id').references('anchor_batches.id');
    t.integer('leaf_index');
    t.jsonb('path');
    t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.index(['sha256']);
    t.unique(['batch_id', 'leaf_index']);
  });
  await knex.raw(`ALTER TABLE anchor_leaves ADD CONSTRAINT anchor_leaves_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')`);
  await knex.raw(`ALTER TABLE anchor_leaves ADD CONSTRAINT anchor_leaves_batch_check CHECK ((batch_id IS NULL) = (leaf_index IS NULL) AND (batch_id IS NULL) = (path IS NULL))`);
  await knex.raw('CREATE INDEX anchor_leaves_pending_idx ON anchor_leaves (id) WHERE batch_id IS NULL');

  // Files signed before anchoring existed join the first batch.
  await knex.raw(`INSERT INTO anchor_leaves (sha256, signed_file_id, created_at) SELECT sha256, id, created_at FROM signed_files ORDER BY created_at, id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('anchor_leaves');
  await knex.schema.dropTable('anchor_transactions');
  await knex.schema.dropTable('anchor_batches');
  await knex('sign_jobs').whereIn('status', ['anchoring', 'anchored']).update({ status: 'signed' });
  await knex.raw('ALTER TABLE sign_jobs DROP CONSTRAINT sign_jobs_status_check');
  await knex.raw(statusCheck(STATUSES_BEFORE));
}
