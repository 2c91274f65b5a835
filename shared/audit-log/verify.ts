/**
 * Checks the whole audit log offline (`npm run audit -- verify`), trusting only the checkpoint key and the chain:
 *
 * 1. every event, in index order: no index missing, and its content hashes to its stored leaf hash (a row edited
 *    after it was recorded is named here);
 * 2. the tree over the recomputed leaves: every checkpoint's signature (with the given key), and its root equal to
 *    the tree's root at its size; each checkpoint consistent with the one before (RFC 9162 consistency proof);
 * 3. every anchored checkpoint root: its anchor proof, checked against the chain (transaction, sender, block).
 *
 * Archived ranges (`export --before`) are checked from their archive file's leaves: see archive.ts.
 */
import type { Knex } from 'knex';
import { anchorViewsOfLeaves } from '../anchoring/views.js';
import type { ChainConnection } from '../chain/provider.js';
import { checkProofOnChain } from '../chain/proof.js';
import { allAuditCheckpoints, auditEventsInRange, auditLogSize } from '../db/repositories/audit-events.js';
import { auditEventView, recomputedLeafHash } from '../audit/view.js';
import { CheckpointNoteError, openCheckpoint } from './checkpoint-note.js';
import { MerkleLog, verifyConsistency } from './tree.js';

export interface VerifyProblem {
  /** What is wrong: an event (by id and index), an index, a checkpoint (by tree size) or an anchor. */
  subject: string;
  message: string;
}

export interface VerifyReport {
  events: number;
  checkpoints: number;
  anchorsChecked: number;
  anchorsPending: number;
  /** Anchored, but not checked: no chain given, or it could not be reached. */
  anchorsUnchecked: number;
  problems: VerifyProblem[];
  /** Why the anchors were not checked against the chain, when they were not. */
  chainNote?: string;
}

const PAGE = 5000;

export async function verifyAuditLog(deps: { knex: Knex; publicKeySpki: Uint8Array; origin: string; chain?: ChainConnection; baseUrl: string; onProgress?: (n: number) => void }): Promise<VerifyReport> {
  const { knex } = deps;
  const problems: VerifyProblem[] = [];
  const tree = new MerkleLog();
  const size = await auditLogSize(knex);

  for (let from = 0; from < size; from += PAGE) {
    const rows = await auditEventsInRange(from, Math.min(size, from + PAGE), knex);
    let expected = from;
    for (const row of rows) {
      while (expected < row.leaf_index) {
        problems.push({ subject: `leaf ${expected}`, message: 'no event holds this index (a row was deleted)' });
        tree.append(Buffer.alloc(32));
        expected += 1;
      }
      const recomputed = recomputedLeafHash(row);
      if (recomputed !== row.leaf_hash) {
        const v = auditEventView(row);
        problems.push({ subject: `event ${row.id} (leaf ${row.leaf_index})`, message: `its content (${v.action} at ${v.time}) does not hash to its recorded leaf hash: the row was changed after it was recorded` });
      }
      tree.append(Buffer.from(recomputed, 'base64'));
      expected += 1;
    }
    for (; expected < Math.min(size, from + PAGE); expected += 1) {
      problems.push({ subject: `leaf ${expected}`, message: 'no event holds this index (a row was deleted)' });
      tree.append(Buffer.alloc(32));
    }
    deps.onProgress?.(tree.size);
  }

  const checkpoints = await allAuditCheckpoints(knex);
  let previous: { size: number; root: Buffer } | undefined;
  for (const c of checkpoints) {
    const subject = `checkpoint ${c.tree_size}`;
    let signedRoot: Buffer;
    try {
      const opened = openCheckpoint(c.note, deps.publicKeySpki, deps.origin);
      if (opened.treeSize !== c.tree_size || opened.root.toString('base64') !== c.root_hash) {
        problems.push({ subject, message: 'the stored tree size or root differs from what the signed note says' });
      }
      signedRoot = opened.root;
    } catch (err) {
      problems.push({ subject, message: err instanceof CheckpointNoteError ? err.message : `unreadable: ${(err as Error).message}` });
      continue;
    }
    if (c.tree_size > tree.size) {
      problems.push({ subject, message: `it signs ${c.tree_size} events; the log holds ${tree.size}: events were removed` });
      continue;
    }
    if (!tree.root(c.tree_size).equals(signedRoot)) {
      problems.push({ subject, message: 'the signed root is not the root of the events as stored: an event below this size was changed, removed or reordered' });
    }
    if (previous && !verifyConsistency(previous.size, c.tree_size, tree.consistencyProof(previous.size, c.tree_size), previous.root, signedRoot)) {
      problems.push({ subject, message: `not consistent with checkpoint ${previous.size}: the log was rewritten between them` });
    }
    previous = { size: c.tree_size, root: signedRoot };
  }

  const report: VerifyReport = { events: tree.size, checkpoints: checkpoints.length, anchorsChecked: 0, anchorsPending: 0, anchorsUnchecked: 0, problems };
  const anchored = checkpoints.filter((c) => c.anchor_leaf_id !== null);
  const views = await anchorViewsOfLeaves(knex, deps.baseUrl, anchored.map((c) => c.anchor_leaf_id!));
  for (const c of anchored) {
    const view = views.get(c.anchor_leaf_id!);
    if (!view?.proof) {
      report.anchorsPending += 1;
      continue;
    }
    if (!deps.chain) {
      report.chainNote = 'no chain to check the anchors against (CHAIN_RPC_URL or --rpc)';
      report.anchorsUnchecked += 1;
      continue;
    }
    const rootHex = Buffer.from(c.root_hash, 'base64').toString('hex');
    const check = await checkProofOnChain(() => deps.chain!.ready(), view.proof, rootHex);
    if (check.result === 'verified') report.anchorsChecked += 1;
    else if (check.result === 'failed') problems.push({ subject: `checkpoint ${c.tree_size} anchor`, message: `${check.reason}: ${check.message}` });
    else {
      report.chainNote = `anchors not checked: ${check.message}`;
      report.anchorsUnchecked += 1;
    }
  }
  return report;
}
