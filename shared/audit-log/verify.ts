/**
 * Checks the whole audit log offline (`npm run audit -- verify`), trusting only the checkpoint key and the chain:
 *
 * 1. every event, in index order: no index missing, and its content hashes to its stored leaf hash (a row edited
 *    after it was recorded is named here);
 * 2. the tree over the recomputed leaves: every checkpoint's signature (with the given key), and its root equal to
 *    the tree's root at its size; each checkpoint consistent with the one before (RFC 9162 consistency proof);
 * 3. every anchored checkpoint root: its anchor proof, checked against the chain (transaction, sender, block).
 *
 * Archived ranges (`export --before`, archive.ts) are no longer in the database: the tree starts from the frontier
 * recorded at their end, which the checkpoint signed at that end checks. Given their archive files (--archive), each
 * file is checked on its own (archive-file.ts) and against the database's record of its range, and when the files
 * cover every archived range the whole tree is rebuilt from their leaves, so every checkpoint is checked as before.
 */
import type { Knex } from 'knex';
import { anchorViewsOfLeaves } from '../anchoring/views.js';
import type { ChainConnection } from '../chain/provider.js';
import { checkProofOnChain } from '../chain/proof.js';
import { allAuditCheckpoints, auditArchives, auditEventsInRange, auditLogSize, type AuditArchiveRow } from '../db/repositories/audit-events.js';
import { auditEventView, recomputedLeafHash } from '../audit/view.js';
import { checkArchiveFile, type ArchiveCheck } from './archive-file.js';
import { CheckpointNoteError, openCheckpoint } from './checkpoint-note.js';
import { ArchivedRangeError, MerkleLog, verifyConsistency } from './tree.js';

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
  /** Leaves [0, archived) are archived (no longer in the database), in `archiveRanges` ranges. */
  archived: number;
  archiveRanges: number;
  /** Archive files checked; true when they covered every archived range (the whole tree was rebuilt from them). */
  archiveFiles: number;
  archivedFromFiles: boolean;
  /** Checkpoints inside the archived leaves whose roots could not be recomputed (their signatures were checked). */
  checkpointsArchived: number;
}

const PAGE = 5000;

/** The archived ranges as recorded, and the given archive files: each checked alone and against that record. */
async function checkArchives(deps: VerifyDeps, records: AuditArchiveRow[], problems: VerifyProblem[]): Promise<ArchiveCheck[]> {
  records.forEach((r, i) => {
    const expected = i === 0 ? 0 : records[i - 1]!.end_index;
    if (r.start_index !== expected) problems.push({ subject: `archive record ${r.start_index}-${r.end_index - 1}`, message: `it starts at leaf ${r.start_index}, not where the one before ended (${expected})` });
  });
  const checks: ArchiveCheck[] = [];
  for (const file of deps.archives ?? []) {
    const check = await checkArchiveFile(file, deps.publicKeySpki, deps.origin);
    problems.push(...check.problems);
    checks.push(check);
    const { header, tree } = check;
    if (!header || !tree || tree.size !== header.end) continue;
    const record = records.find((r) => r.start_index === header.start && r.end_index === header.end);
    if (record && tree.frontier(header.end).some((h, i) => h.toString('base64') !== record.frontier[i])) {
      problems.push({ subject: `archive ${file}`, message: `it does not match the database's record of leaves ${header.start} to ${header.end - 1}` });
    }
  }
  return checks;
}

/** The whole tree from archive files covering [0, end) in order, when they do; undefined otherwise. */
function treeFromFiles(checks: ArchiveCheck[], end: number): MerkleLog | undefined {
  const tree = new MerkleLog();
  while (tree.size < end) {
    const next = checks.find((c) => c.problems.length === 0 && c.header?.start === tree.size && c.tree);
    if (!next) return undefined;
    for (let i = next.header!.start; i < next.header!.end; i += 1) tree.append(next.tree!.leaf(i));
  }
  return tree.size === end ? tree : undefined;
}

interface VerifyDeps {
  knex: Knex;
  publicKeySpki: Uint8Array;
  origin: string;
  chain?: ChainConnection;
  baseUrl: string;
  /** Archive files written by `export --before`. */
  archives?: string[];
  onProgress?: (n: number) => void;
}

export async function verifyAuditLog(deps: VerifyDeps): Promise<VerifyReport> {
  const { knex } = deps;
  const problems: VerifyProblem[] = [];
  const size = await auditLogSize(knex);
  const records = await auditArchives(knex);
  const checks = await checkArchives(deps, records, problems);
  const archived = records.at(-1)?.end_index ?? 0;
  const fromFiles = archived > 0 ? treeFromFiles(checks, archived) : undefined;
  const latest = records.at(-1);
  const tree = fromFiles ?? (latest ? MerkleLog.fromFrontier(archived, latest.frontier.map((h) => Buffer.from(h, 'base64'))) : new MerkleLog());

  for (let from = archived; from < size; from += PAGE) {
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
  for (const r of records) {
    if (!checkpoints.some((c) => c.tree_size === r.end_index)) problems.push({ subject: `archive record ${r.start_index}-${r.end_index - 1}`, message: 'no signed checkpoint ends where it ends' });
  }
  for (const c of checks) {
    const { header, tree: t } = c;
    const atEnd = header && checkpoints.find((cp) => cp.tree_size === header.end);
    if (header && t && t.size === header.end && atEnd && Buffer.from(atEnd.root_hash, 'base64').compare(t.root(header.end)) !== 0) {
      problems.push({ subject: `archive ${c.file}`, message: `its events do not make this log's checkpoint ${header.end}` });
    }
  }
  let checkpointsArchived = 0;
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
    try {
      if (!tree.root(c.tree_size).equals(signedRoot)) {
        problems.push({ subject, message: 'the signed root is not the root of the events as stored: an event below this size was changed, removed or reordered' });
      }
    } catch (err) {
      if (!(err instanceof ArchivedRangeError)) throw err;
      // Inside the archived leaves: only its signature was checked (its archive file would tell more).
      checkpointsArchived += 1;
      previous = { size: c.tree_size, root: signedRoot };
      continue;
    }
    try {
      if (previous && !verifyConsistency(previous.size, c.tree_size, tree.consistencyProof(previous.size, c.tree_size), previous.root, signedRoot)) {
        problems.push({ subject, message: `not consistent with checkpoint ${previous.size}: the log was rewritten between them` });
      }
    } catch (err) {
      // The checkpoint before lies inside the archived leaves, this one at or past their end: the root check above covers it.
      if (!(err instanceof ArchivedRangeError)) throw err;
    }
    previous = { size: c.tree_size, root: signedRoot };
  }

  const report: VerifyReport = {
    events: tree.size,
    checkpoints: checkpoints.length,
    anchorsChecked: 0,
    anchorsPending: 0,
    anchorsUnchecked: 0,
    problems,
    archived,
    archiveRanges: records.length,
    archiveFiles: checks.length,
    archivedFromFiles: fromFiles !== undefined,
    checkpointsArchived,
  };
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
