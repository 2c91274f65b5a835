/**
 * The anchor aggregate: leaves (a signed file's hash waiting for, or placed in, a batch), batches (a Merkle tree whose
 * root goes on chain) and the transactions signed for them. Signed files and their jobs belong to the sign job
 * repository; queries that need both take that repository's subqueries (anchoring, shared/anchoring/).
 */
import type { ProofStep } from '../../chain/merkle.js';
import type { Knex } from '../knex.js';

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

// ---- leaves

/** Adds a signed file's SHA-256 to the pending batch (once per file). */
export async function insertAnchorLeaf(leaf: { signedFileId: string; sha256: string }, db: Knex): Promise<void> {
  await db('anchor_leaves').insert({ sha256: leaf.sha256.toLowerCase(), signed_file_id: leaf.signedFileId }).onConflict('signed_file_id').ignore();
}

/** Adds a hash that is no file's (an audit checkpoint's root) to the pending batch; answers the leaf's id. */
export async function insertHashAnchorLeaf(sha256: string, db: Knex): Promise<number> {
  const [row] = (await db('anchor_leaves').insert({ sha256: sha256.toLowerCase(), signed_file_id: null }).returning('id')) as Array<{ id: number | string }>;
  return Number(row!.id);
}

/** A correlated subquery finding the leaf of the signed file in `fileIdColumn` (for another repository's NOT EXISTS). */
export function leafOfFileQuery(fileIdColumn: string, db: Knex): Knex.QueryBuilder {
  return db('anchor_leaves as l').select(db.raw('1')).whereRaw('l.signed_file_id = ??', [fileIdColumn]);
}

/** Adds leaves for the files a query selects as (sha256, id, created_at), each once; returns how many were added. */
export async function insertLeavesFrom(files: Knex.QueryBuilder, db: Knex): Promise<number> {
  const result = await db.raw('INSERT INTO anchor_leaves (sha256, signed_file_id, created_at) ? ON CONFLICT (signed_file_id) DO NOTHING', [files]);
  return Number((result as { rowCount?: number; affectedRows?: number }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
}

/** A subquery selecting the signed files whose leaves are in a batch. */
export function filesOfBatchQuery(batchId: number, db: Knex): Knex.QueryBuilder {
  return db('anchor_leaves').where({ batch_id: batchId }).select('signed_file_id');
}

/** The status of the batch holding a signed file's leaf (read FOR SHARE), or undefined while it waits for one. */
export async function batchStatusOfFile(fileId: string | Knex.QueryBuilder, trx: Knex.Transaction): Promise<BatchStatus | undefined> {
  const row = (await trx('anchor_batches as b').join('anchor_leaves as l', 'l.batch_id', 'b.id').where('l.signed_file_id', fileId).forShare('b').first('b.status')) as
    | { status: BatchStatus }
    | undefined;
  return row?.status;
}

/** Files in the pending batch, and how long (database clock) the oldest has waited. */
export async function pendingLeafSummary(db: Knex): Promise<{ count: number; oldestAgeMs: number }> {
  const row = (await db('anchor_leaves')
    .whereNull('batch_id')
    .first(db.raw('count(*)::int AS count'), db.raw('COALESCE(EXTRACT(EPOCH FROM (clock_timestamp() - min(created_at))) * 1000, 0)::float8 AS age_ms'))) as {
    count: number | string;
    age_ms: number | string;
  };
  return { count: Number(row.count), oldestAgeMs: Number(row.age_ms) };
}

/** The oldest pending leaves (at most `limit`), locked FOR UPDATE SKIP LOCKED: two sealers never take one leaf. */
export async function takePendingLeaves(limit: number, trx: Knex.Transaction): Promise<Array<{ id: number; sha256: string }>> {
  const rows = (await trx('anchor_leaves').whereNull('batch_id').orderBy('id').limit(limit).forUpdate().skipLocked().select('id', 'sha256')) as Array<{ id: number | string; sha256: string }>;
  return rows.map((r) => ({ id: Number(r.id), sha256: r.sha256 }));
}

const UPDATE_CHUNK = 2000;

/** Places leaves in a batch: each its index (its place in `leaves`) and its proof path. */
export async function placeLeaves(batchId: number, leaves: Array<{ id: number; path: ProofStep[] }>, trx: Knex.Transaction): Promise<void> {
  for (let start = 0; start < leaves.length; start += UPDATE_CHUNK) {
    const chunk = leaves.slice(start, start + UPDATE_CHUNK);
    const values = chunk.map(() => '(?::bigint, ?::int, ?::jsonb)').join(', ');
    const bindings = chunk.flatMap((l, i) => [l.id, start + i, JSON.stringify(l.path)]);
    await trx.raw(`UPDATE anchor_leaves AS l SET batch_id = ?, leaf_index = v.idx, path = v.path FROM (VALUES ${values}) AS v(id, idx, path) WHERE l.id = v.id`, [batchId, ...bindings]);
  }
}

// ---- batches and transactions

/** Batches sealed but not yet confirmed. */
export async function unconfirmedBatchCount(db: Knex): Promise<number> {
  const row = (await db('anchor_batches').whereIn('status', ['sealed', 'sent']).first(db.raw('count(*)::int AS n'))) as { n: number | string };
  return Number(row.n);
}

export async function insertSealedBatch(batch: { root: string; leafCount: number }, trx: Knex.Transaction): Promise<number> {
  const [inserted] = (await trx('anchor_batches').insert({ status: 'sealed', root: batch.root, leaf_count: batch.leafCount }).returning('id')) as Array<{ id: number | string }>;
  return Number(inserted!.id);
}

/** Sealed and sent batches with their transactions, oldest first. */
export async function unconfirmedBatches(db: Knex): Promise<UnconfirmedBatch[]> {
  const batches = ((await db('anchor_batches').whereIn('status', ['sealed', 'sent']).orderBy('id')) as Record<string, unknown>[]).map(batchRow);
  if (batches.length === 0) return [];
  const txs = ((await db('anchor_transactions').whereIn('batch_id', batches.map((b) => b.id)).orderBy('id')) as Record<string, unknown>[]).map(transactionRow);
  return batches.map((b) => ({ ...b, transactions: txs.filter((t) => t.batch_id === b.id) }));
}

export type NewTransaction = Pick<
  TransactionRow,
  'batch_id' | 'reason' | 'chain_id' | 'from_address' | 'nonce' | 'tx_hash' | 'raw' | 'gas_limit' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'gas_price'
>;

/**
 * Records a transaction signed for a batch (or a filler, batch_id null) before it is broadcast; the batch then is
 * `sent` with this nonce. One database transaction.
 */
export async function insertTransaction(tx: NewTransaction, db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('anchor_transactions').insert(tx);
    if (tx.batch_id !== null) {
      await trx('anchor_batches')
        .where({ id: tx.batch_id })
        .whereIn('status', ['sealed', 'sent'])
        .update({
          status: 'sent',
          nonce: tx.nonce,
          chain_id: tx.chain_id,
          from_address: tx.from_address,
          send_count: trx.raw('send_count + 1'),
          sent_at: trx.raw('COALESCE(sent_at, now())'),
          last_error: null,
        });
    }
  });
}

export async function markBroadcast(txHash: string, db: Knex): Promise<void> {
  await db('anchor_transactions').where({ tx_hash: txHash }).update({ broadcast_at: db.fn.now() });
}

/** Marks a sent batch confirmed with the transaction that anchored it; false when it was not `sent`. */
export async function markBatchConfirmed(
  batchId: number,
  anchor: { txHash: string; nonce: number; blockNumber: number; blockHash: string; blockTime: Date },
  trx: Knex.Transaction,
): Promise<boolean> {
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
  return changed > 0;
}

// ---- what a leaf's anchor looks like

export interface LeafAnchorRow {
  sha256: string;
  signed_file_id: string | null;
  leaf_index: number | null;
  path: ProofStep[] | string | null;
  batch_status: BatchStatus | null;
  root: string | null;
  leaf_count: number | null;
  chain_id: number | string | null;
  from_address: string | null;
  tx_hash: string | null;
  block_number: number | string | null;
  block_hash: string | null;
  block_time: Date | null;
  /** The transaction last signed for the batch. */
  current_tx_hash: string | null;
}

function leafAnchorRows(db: Knex) {
  return db('anchor_leaves as l')
    .leftJoin('anchor_batches as b', 'b.id', 'l.batch_id')
    .select(
      'l.sha256',
      'l.signed_file_id',
      'l.leaf_index',
      'l.path',
      'b.status as batch_status',
      'b.root',
      'b.leaf_count',
      'b.chain_id',
      'b.from_address',
      'b.tx_hash',
      'b.block_number',
      'b.block_hash',
      'b.block_time',
      db.raw('(SELECT t.tx_hash FROM anchor_transactions t WHERE t.batch_id = b.id ORDER BY t.id DESC LIMIT 1) AS current_tx_hash'),
    );
}

/** The leaves (with their batch) of these signed files. */
export async function leafAnchorsOfFiles(fileIds: string[], db: Knex): Promise<LeafAnchorRow[]> {
  return (await leafAnchorRows(db).whereIn('l.signed_file_id', fileIds)) as LeafAnchorRow[];
}

/** The leaves (with their batch) of these ids. */
export async function leafAnchorsOfIds(ids: number[], db: Knex): Promise<Array<LeafAnchorRow & { id: number }>> {
  const rows = (await leafAnchorRows(db).select('l.id').whereIn('l.id', ids)) as Array<LeafAnchorRow & { id: number | string }>;
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Every leaf (with its batch) of these bytes, in the order they were added. */
export async function leafAnchorsOfHash(sha256: string, db: Knex): Promise<LeafAnchorRow[]> {
  return (await leafAnchorRows(db).where('l.sha256', sha256.toLowerCase()).orderBy('l.id')) as LeafAnchorRow[];
}
