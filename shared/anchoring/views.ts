/** How a file's anchor looks from outside: the job view's `anchor` object and the public proof endpoint. */
import type { Knex } from 'knex';
import type { ProofStep } from '../chain/merkle.js';
import { makeProof, type AnchorProof } from '../chain/proof.js';

export type AnchorStatus = 'pending' | 'anchoring' | 'anchored';

export interface AnchorView {
  /** pending: waiting in the pending batch; anchoring: batch sealed, transaction on its way; anchored: confirmed. */
  status: AnchorStatus;
  /** Public address of this file's proof (no credentials needed). */
  proof_url: string;
  /** The Merkle root of the file's batch, once sealed. */
  root: string | null;
  /** Chain and transaction last sent for the batch; may still be replaced until anchored. */
  chain_id: number | null;
  transaction_hash: string | null;
  /** The complete proof, once anchored. */
  proof: AnchorProof | null;
}

interface LeafRow {
  sha256: string;
  signed_file_id: string | null;
  leaf_index: number | null;
  path: ProofStep[] | string | null;
  batch_status: 'sealed' | 'sent' | 'confirmed' | null;
  root: string | null;
  leaf_count: number | null;
  chain_id: number | string | null;
  from_address: string | null;
  tx_hash: string | null;
  block_number: number | string | null;
  block_hash: string | null;
  block_time: Date | null;
  current_tx_hash: string | null;
}

export const proofUrl = (baseUrl: string, sha256: string) => `${baseUrl}/v1/media/anchors/${sha256}`;

function leafRows(knex: Knex) {
  return knex('anchor_leaves as l')
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
      knex.raw('(SELECT t.tx_hash FROM anchor_transactions t WHERE t.batch_id = b.id ORDER BY t.id DESC LIMIT 1) AS current_tx_hash'),
    );
}

function toView(baseUrl: string, row: LeafRow): AnchorView {
  const status: AnchorStatus = row.batch_status === null ? 'pending' : row.batch_status === 'confirmed' ? 'anchored' : 'anchoring';
  const path = (typeof row.path === 'string' ? JSON.parse(row.path) : row.path) as ProofStep[] | null;
  const proof =
    status === 'anchored'
      ? makeProof({
          file_sha256: row.sha256,
          leaf_index: row.leaf_index!,
          tree_size: row.leaf_count!,
          path: path!,
          root: row.root!,
          chain_id: Number(row.chain_id),
          transaction_hash: row.tx_hash!,
          block_number: Number(row.block_number),
          block_hash: row.block_hash!,
          block_time: row.block_time!.toISOString(),
          from_address: row.from_address!,
        })
      : null;
  return {
    status,
    proof_url: proofUrl(baseUrl, row.sha256),
    root: row.root,
    chain_id: row.chain_id === null ? null : Number(row.chain_id),
    transaction_hash: row.tx_hash ?? row.current_tx_hash,
    proof,
  };
}

/** Anchor views of signed files, by file id (files without a leaf are left out). */
export async function anchorViewsForFiles(knex: Knex, baseUrl: string, fileIds: string[]): Promise<Map<string, AnchorView>> {
  if (fileIds.length === 0) return new Map();
  const rows = (await leafRows(knex).whereIn('l.signed_file_id', fileIds)) as LeafRow[];
  return new Map(rows.map((r) => [r.signed_file_id!, toView(baseUrl, r)]));
}

const RANK: Record<AnchorStatus, number> = { anchored: 0, anchoring: 1, pending: 2 };

/**
 * The anchor of a file hash: the earliest anchored one when the same bytes were anchored more than once (the
 * earliest proves the most), else the one furthest along. Undefined when the service never signed such a file.
 */
export async function anchorViewForHash(knex: Knex, baseUrl: string, sha256: string): Promise<AnchorView | undefined> {
  const rows = (await leafRows(knex).where('l.sha256', sha256.toLowerCase()).orderBy('l.id')) as LeafRow[];
  const views = rows.map((r) => ({ view: toView(baseUrl, r), block: r.block_number === null ? Infinity : Number(r.block_number) }));
  views.sort((a, b) => RANK[a.view.status] - RANK[b.view.status] || a.block - b.block);
  return views[0]?.view;
}
