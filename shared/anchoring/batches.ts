/**
 * Anchor batches: sealing pending leaves into a Merkle tree, recording every transaction before it is broadcast, and
 * confirming. Every step is one database transaction and safe to repeat. A batch's jobs follow it (signed ->
 * anchoring -> anchored) in the same transaction.
 */
import type { Knex } from 'knex';
import { feeColumns, type SignedTransaction } from '../chain/anchor-account.js';
import { buildMerkleTree } from '../chain/merkle.js';
import { filesOfBatchQuery, insertSealedBatch, insertTransaction, markBatchConfirmed, placeLeaves, takePendingLeaves, type TransactionReason } from '../db/repositories/anchors.js';
import { advanceJobsOfFiles, jobIdsOfFiles } from '../db/repositories/sign-jobs.js';
import { recordJobEvents } from './job-webhooks.js';

/**
 * Seals the oldest pending files (at most `maxLeaves`) into a batch: builds the Merkle tree, gives each leaf its
 * index and path, and moves their jobs from signed to anchoring. Leaves are taken FOR UPDATE SKIP LOCKED, so two
 * sealers never put one file in two batches. Undefined when nothing is pending.
 */
export async function sealBatch(knex: Knex, maxLeaves: number): Promise<{ id: number; root: string; size: number } | undefined> {
  return knex.transaction(async (trx) => {
    const leaves = await takePendingLeaves(maxLeaves, trx);
    if (leaves.length === 0) return undefined;
    const tree = buildMerkleTree(leaves.map((l) => l.sha256));
    const root = tree.root.toString('hex');
    const batchId = await insertSealedBatch({ root, leafCount: leaves.length }, trx);
    await placeLeaves(batchId, leaves.map((l, i) => ({ id: l.id, path: tree.proofs[i]! })), trx);
    await advanceJobsOfFiles(filesOfBatchQuery(batchId, trx), ['signed'], 'anchoring', trx);
    return { id: batchId, root, size: leaves.length };
  });
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
  await insertTransaction(
    {
      batch_id: batchId,
      reason: meta.reason,
      chain_id: meta.chainId,
      from_address: meta.from,
      nonce: tx.nonce,
      tx_hash: tx.hash,
      raw: tx.raw,
      gas_limit: Number(tx.gasLimit),
      ...feeColumns(tx.fees),
    },
    knex,
  );
}

/**
 * Confirms a batch with the transaction that anchored it, moves its jobs to anchored and records their file.anchored
 * webhook events. The batch row is updated
 * first, so a sign job settling its status at the same moment (statusAfterSigning, FOR SHARE) sees one or the other.
 */
export async function confirmBatch(
  knex: Knex,
  batchId: number,
  anchor: { txHash: string; nonce: number; blockNumber: number; blockHash: string; blockTime: Date },
  baseUrl: string,
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    if (!(await markBatchConfirmed(batchId, anchor, trx))) return false;
    await advanceJobsOfFiles(filesOfBatchQuery(batchId, trx), ['signed', 'anchoring'], 'anchored', trx);
    // file.anchored for every file of the batch, with its job's view (now holding the complete proof).
    await recordJobEvents(trx, baseUrl, 'file.anchored', await jobIdsOfFiles(filesOfBatchQuery(batchId, trx), trx));
    return true;
  });
}
