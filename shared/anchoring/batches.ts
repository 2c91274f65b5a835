/**
 * Anchor batches in the database: sealing pending leaves into a Merkle tree, recording every transaction before
 * it is broadcast, and confirming. Every step is one database transaction and safe to repeat.
 */
import type { Knex } from 'knex';
import { feeColumns, type SignedTransaction } from '../chain/anchor-account.js';
import { buildMerkleTree } from '../chain/merkle.js';

export type BatchStatus = 'sealed' | 'sent' | 'confirmed';
export type TransactionReason = 'first' | 'fee_bump' | 'new_nonce' | 'filler';

export interface BatchRow {
  id: number;
  status: BatchStatus;
  root: string;
  leaf_count: number;
  chain_id: number | null;
  from_address: string | null;
  nonce: number | null;
  send_count: number;
  sealed_at: Date;
}

export interface TransactionRow {
  id: number;
  batch_id: number | null;
  reason: TransactionReason;
  chain_id: number;
  from_address: string;
  nonce: number;
  tx_hash: string;
  raw: string;
  gas_limit: number;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  gas_price: string | null;
  created_at: Date;
  broadcast_at: Date | null;
}

export interface UnconfirmedBatch extends BatchRow {
  /** Transactions signed for the batch, oldest first. */
  transactions: TransactionRow[];
}

// int8 columns come back as strings from PGlite and as numbers from pg (shared/db/knex.ts).
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function batchRow(r: Record<string, unknown>): BatchRow {
  return {
    id: Number(r.id),
    status: r.status as BatchStatus,
    root: r.root as string,
    leaf_count: Number(r.leaf_count),
    chain_id: num(r.chain_id),
    from_address: (r.from_address as string | null) ?? null,
    nonce: num(r.nonce),
    send_count: Number(r.send_count),
    sealed_at: r.sealed_at as Date,
  };
}

function transactionRow(r: Record<string, unknown>): TransactionRow {
  return {
    ...(r as unknown as TransactionRow),
    id: Number(r.id),
    batch_id: num(r.batch_id),
    chain_id: Number(r.chain_id),
    nonce: Number(r.nonce),
    gas_limit: Number(r.gas_limit),
  };
}

/** Files in the pending batch, and how long (database clock) the oldest has waited. */
export async function pendingSummary(knex: Knex): Promise<{ count: number; oldestAgeMs: number }> {
  const row = (await knex('anchor_leaves')
    .whereNull('batch_id')
    .first(knex.raw('count(*)::int AS count'), knex.raw('COALESCE(EXTRACT(EPOCH FROM (clock_timestamp() - min(created_at))) * 1000, 0)::float8 AS age_ms'))) as {
    count: number | string;
    age_ms: number | string;
  };
  return { count: Number(row.count), oldestAgeMs: Number(row.age_ms) };
}

/** Batches sealed but not yet confirmed. */
export async function unconfirmedCount(knex: Knex): Promise<number> {
  const row = (await knex('anchor_batches').whereIn('status', ['sealed', 'sent']).first(knex.raw('count(*)::int AS n'))) as { n: number | string };
  return Number(row.n);
}

const UPDATE_CHUNK = 2000;

/**
 * Seals the oldest pending files (at most `maxLeaves`) into a batch: builds the Merkle tree, gives each leaf its
 * index and path, and moves their jobs from signed to anchoring. Leaves are taken FOR UPDATE SKIP LOCKED, so two
 * sealers never put one file in two batches. Undefined when nothing is pending.
 */
export async function sealBatch(knex: Knex, maxLeaves: number): Promise<{ id: number; root: string; size: number } | undefined> {
  return knex.transaction(async (trx) => {
    const leaves = (await trx('anchor_leaves').whereNull('batch_id').orderBy('id').limit(maxLeaves).forUpdate().skipLocked().select('id', 'sha256')) as Array<{
      id: number | string;
      sha256: string;
    }>;
    if (leaves.length === 0) return undefined;
    const tree = buildMerkleTree(leaves.map((l) => l.sha256));
    const root = tree.root.toString('hex');
    const [inserted] = (await trx('anchor_batches').insert({ status: 'sealed', root, leaf_count: leaves.length }).returning('id')) as Array<{ id: number | string }>;
    const batchId = Number(inserted!.id);
    for (let start = 0; start < leaves.length; start += UPDATE_CHUNK) {
      const chunk = leaves.slice(start, start + UPDATE_CHUNK);
      const values = chunk.map(() => '(?::bigint, ?::int, ?::jsonb)').join(', ');
      const bindings = chunk.flatMap((l, i) => [Number(l.id), start + i, JSON.stringify(tree.proofs[start + i])]);
      await trx.raw(
        `UPDATE anchor_leaves AS l SET batch_id = ?, leaf_index = v.idx, path = v.path FROM (VALUES ${values}) AS v(id, idx, path) WHERE l.id = v.id`,
        [batchId, ...bindings],
      );
    }
    await trx.raw(
      `UPDATE sign_jobs AS j SET status = 'anchoring', updated_at = now()
       FROM anchor_leaves AS l JOIN signed_files AS f ON f.id = l.signed_file_id
       WHERE l.batch_id = ? AND j.id = f.job_id AND j.status = 'signed'`,
      [batchId],
    );
    return { id: batchId, root, size: leaves.length };
  });
}

/** Sealed and sent batches with their transactions, oldest first. */
export async function unconfirmedBatches(knex: Knex): Promise<UnconfirmedBatch[]> {
  const batches = ((await knex('anchor_batches').whereIn('status', ['sealed', 'sent']).orderBy('id')) as Record<string, unknown>[]).map(batchRow);
  if (batches.length === 0) return [];
  const txs = ((await knex('anchor_transactions').whereIn('batch_id', batches.map((b) => b.id)).orderBy('id')) as Record<string, unknown>[]).map(transactionRow);
  return batches.map((b) => ({ ...b, transactions: txs.filter((t) => t.batch_id === b.id) }));
}

/**
 * Records a transaction signed for a batch (or a filler, batchId null) before it is broadcast; the batch then is
 * `sent` with this nonce. A crash after this point leaves a transaction the next run finds and re-sends.
 */
export async function recordTransaction(
  knex: Knex,
  batchId: number | null,
  tx: SignedTransaction,
  meta: { reason: TransactionReason; chainId: number; from: string },
): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx('anchor_transactions').insert({
      batch_id: batchId,
      reason: meta.reason,
      chain_id: meta.chainId,
      from_address: meta.from,
      nonce: tx.nonce,
      tx_hash: tx.hash,
      raw: tx.raw,
      gas_limit: Number(tx.gasLimit),
      ...feeColumns(tx.fees),
    });
    if (batchId !== null) {
      await trx('anchor_batches')
        .where({ id: batchId })
        .whereIn('status', ['sealed', 'sent'])
        .update({
          status: 'sent',
          nonce: tx.nonce,
          chain_id: meta.chainId,
          from_address: meta.from,
          send_count: trx.raw('send_count + 1'),
          sent_at: trx.raw('COALESCE(sent_at, now())'),
          last_error: null,
        });
    }
  });
}

export async function markBroadcast(knex: Knex, txHash: string): Promise<void> {
  await knex('anchor_transactions').where({ tx_hash: txHash }).update({ broadcast_at: knex.fn.now() });
}

/**
 * Confirms a batch with the transaction that anchored it and moves its jobs to anchored. The batch row is updated
 * first, so a sign job settling its status at the same moment (statusAfterSigning, FOR SHARE) sees one or the other.
 */
export async function confirmBatch(
  knex: Knex,
  batchId: number,
  anchor: { txHash: string; nonce: number; blockNumber: number; blockHash: string; blockTime: Date },
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const changed = await trx('anchor_batches').where({ id: batchId, status: 'sent' }).update({
      status: 'confirmed',
      tx_hash: anchor.txHash,
      nonce: anchor.nonce,
      block_number: anchor.blockNumber,
      block_hash: anchor.blockHash,
      block_time: anchor.blockTime,
      confirmed_at: trx.fn.now(),
      last_error: null,
    });
    if (changed === 0) return false;
    await trx.raw(
      `UPDATE sign_jobs AS j SET status = 'anchored', updated_at = now()
       FROM anchor_leaves AS l JOIN signed_files AS f ON f.id = l.signed_file_id
       WHERE l.batch_id = ? AND j.id = f.job_id AND j.status IN ('signed', 'anchoring')`,
      [batchId],
    );
    return true;
  });
}
