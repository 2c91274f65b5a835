import type { Knex } from 'knex';

/**
 * The audit log (issue 33): security events as the leaves of an append-only Merkle tree, and the signed checkpoints
 * over it.
 *
 * - audit_events: one row per event, written in the same transaction as the change it describes. leaf_index is
 *   taken from audit_log_head in that transaction (UPDATE ... RETURNING): the row lock serialises the writers from
 *   that statement to their commit, and a rolled-back transaction gives its index back, so indexes have no gaps
 *   and a committed index k + 1 implies a committed k (the visible log is always a prefix). Writers record their
 *   event last in their transaction to keep that lock short.
 * - audit_checkpoints: a signed tree head (C2SP tlog-checkpoint note) per tree size, with the anchor leaf that puts
 *   its root on chain.
 *
 * - audit_archives: one row per range of events archived by `npm run audit -- export --before` (always ending at a
 *   checkpoint), with the frontier of the tree at its end: the hashes of the complete subtrees of the archived prefix,
 *   which is all later roots and proofs need of it.
 *
 * All refuse UPDATE and DELETE with a trigger: stored events, checkpoints and archive records are never edited. The
 * one DELETE allowed is of events below the end of a recorded archive (the archive's own transaction removes them).
 * Events have no foreign key to organisations: an organisation's removal must not take its history with it.
 */
const REFUSE = `
CREATE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END
$$`;

const REFUSE_UNARCHIVED = `
CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.leaf_index < (SELECT coalesce(max(end_index), 0) FROM audit_archives) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END
$$`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log_head', (t) => {
    t.integer('id').primary();
    t.bigInteger('size').notNullable();
  });
  await knex.raw('ALTER TABLE audit_log_head ADD CONSTRAINT audit_log_head_one_row CHECK (id = 1 AND size >= 0)');
  await knex('audit_log_head').insert({ id: 1, size: 0 });

  await knex.schema.createTable('audit_events', (t) => {
    t.uuid('id').primary();
    t.bigInteger('leaf_index').notNullable().unique();
    t.text('leaf_hash').notNullable();
    t.timestamp('time', { useTz: true, precision: 3 }).notNullable();
    t.uuid('org_id').nullable();
    t.jsonb('actor').notNullable();
    t.string('action', 64).notNullable();
    t.jsonb('target').nullable();
    t.string('outcome', 16).notNullable();
    t.jsonb('details').notNullable();
    t.index(['org_id', 'leaf_index']);
    t.index(['action', 'leaf_index']);
  });
  await knex.raw("ALTER TABLE audit_events ADD CONSTRAINT audit_events_outcome CHECK (outcome IN ('success', 'failure', 'refused'))");

  await knex.schema.createTable('audit_checkpoints', (t) => {
    t.bigInteger('tree_size').primary();
    t.text('root_hash').notNullable();
    t.text('note').notNullable();
    // The signing key's DER SubjectPublicKeyInfo (base64), as served beside the note; checkers pin it out of band.
    t.text('public_key').notNullable();
    t.timestamp('signed_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    // The anchor leaf (sha256 = the root, no file) that carries the root to the chain with the next anchor batch.
    // No foreign key: it would tie anchor_leaves to this append-only table, so TRUNCATE anchor_leaves ... CASCADE
    // (and migration 004's down step) would reach into it and be refused by its trigger. verify reads the leaf by id
    // and counts a missing one as not anchored.
    t.bigInteger('anchor_leaf_id').nullable();
  });

  await knex.schema.createTable('audit_archives', (t) => {
    t.bigInteger('end_index').primary();
    t.bigInteger('start_index').notNullable();
    // JSON array of base64 hashes: the complete subtrees of leaves [0, end_index), largest first.
    t.jsonb('frontier').notNullable();
    // SHA-256 (hex) of the archive file as written, so an operator can tell which copy is the one recorded.
    t.text('file_sha256').notNullable();
    t.timestamp('before', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('archived_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
  });
  await knex.raw('ALTER TABLE audit_archives ADD CONSTRAINT audit_archives_range CHECK (0 <= start_index AND start_index < end_index)');

  await knex.raw(REFUSE);
  await knex.raw(REFUSE_UNARCHIVED);
  for (const table of ['audit_events', 'audit_checkpoints', 'audit_archives']) {
    const refuse = table === 'audit_events' ? 'audit_events_refuse_change' : 'audit_refuse_change';
    await knex.raw(`CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
    await knex.raw(`CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_archives');
  await knex.schema.dropTable('audit_checkpoints');
  await knex.schema.dropTable('audit_events');
  await knex.schema.dropTable('audit_log_head');
  await knex.raw('DROP FUNCTION audit_refuse_change()');
  await knex.raw('DROP FUNCTION audit_events_refuse_change()');
}
