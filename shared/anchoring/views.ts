/** How a file's anchor looks from outside: the job view's `anchor` object and the public proof endpoint. */
import type { Knex } from 'knex';
import type { ProofStep } from '../chain/merkle.js';
import { makeProof, type AnchorProof } from '../chain/proof.js';
import { leafAnchorsOfFiles, leafAnchorsOfHash, leafAnchorsOfIds, type LeafAnchorRow } from '../db/repositories/anchors.js';

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

export const proofUrl = (baseUrl: string, sha256: string) => `${baseUrl}/v1/media/anchors/${sha256}`;

function toView(baseUrl: string, row: LeafAnchorRow): AnchorView {
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
/** The anchors of leaves that are no file's (audit checkpoints' roots), by leaf id. */
export async function anchorViewsOfLeaves(knex: Knex, baseUrl: string, leafIds: number[]): Promise<Map<number, AnchorView>> {
  if (leafIds.length === 0) return new Map();
  return new Map((await leafAnchorsOfIds(leafIds, knex)).map((r) => [r.id, toView(baseUrl, r)]));
}

export async function anchorViewsForFiles(knex: Knex, baseUrl: string, fileIds: string[]): Promise<Map<string, AnchorView>> {
  if (fileIds.length === 0) return new Map();
  const rows = await leafAnchorsOfFiles(fileIds, knex);
  return new Map(rows.map((r) => [r.signed_file_id!, toView(baseUrl, r)]));
}

const RANK: Record<AnchorStatus, number> = { anchored: 0, anchoring: 1, pending: 2 };

/**
 * The anchor of a file hash: the earliest anchored one when the same bytes were anchored more than once (the
 * earliest proves the most), else the one furthest along. Undefined when the service never signed such a file.
 */
export async function anchorViewForHash(knex: Knex, baseUrl: string, sha256: string): Promise<AnchorView | undefined> {
  const rows = await leafAnchorsOfHash(sha256, knex);
  const views = rows.map((r) => ({ view: toView(baseUrl, r), block: r.block_number === null ? Infinity : Number(r.block_number) }));
  views.sort((a, b) => RANK[a.view.status] - RANK[b.view.status] || a.block - b.block);
  return views[0]?.view;
}
