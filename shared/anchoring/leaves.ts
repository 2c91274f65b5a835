/**
 * Files joining the pending anchor batch. A signed file's hash is added in the same database transaction that
 * records the signed file, so no signed file can exist without its leaf; `enrolMissingLeaves` (run when the
 * anchoring job starts) covers anything older.
 */
import type { Knex } from 'knex';
import type { JobStatus } from '../db/models/sign-job.js';

/** Adds a signed file's SHA-256 (of the signed bytes, what a verifier holds) to the pending anchor batch. */
export async function addAnchorLeaf(trx: Knex | Knex.Transaction, leaf: { signedFileId: string; sha256: string }): Promise<void> {
  await trx('anchor_leaves').insert({ sha256: leaf.sha256.toLowerCase(), signed_file_id: leaf.signedFileId }).onConflict('signed_file_id').ignore();
}

/** Adds every signed file that has no leaf yet (none should exist; this is the safety net). Returns how many. */
export async function enrolMissingLeaves(knex: Knex): Promise<number> {
  const result = await knex.raw(
    `INSERT INTO anchor_leaves (sha256, signed_file_id, created_at)
     SELECT f.sha256, f.id, f.created_at FROM signed_files f
     WHERE NOT EXISTS (SELECT 1 FROM anchor_leaves l WHERE l.signed_file_id = f.id)
     ORDER BY f.created_at, f.id
     ON CONFLICT (signed_file_id) DO NOTHING`,
  );
  return Number((result as { rowCount?: number; affectedRows?: number }).rowCount ?? (result as { affectedRows?: number }).affectedRows ?? 0);
}

/**
 * The status a job with a signed file should show, from its file's anchor: signed (waiting in the pending batch),
 * anchoring (batch sealed, transaction on its way) or anchored. The batch row is read FOR SHARE, so a batch being
 * confirmed at the same moment is seen either before (and then updates this job after us) or after.
 */
export async function statusAfterSigning(trx: Knex.Transaction, jobId: string): Promise<Extract<JobStatus, 'signed' | 'anchoring' | 'anchored'>> {
  const row = (await trx('anchor_batches as b')
    .join('anchor_leaves as l', 'l.batch_id', 'b.id')
    .join('signed_files as f', 'f.id', 'l.signed_file_id')
    .where('f.job_id', jobId)
    .forShare('b')
    .first('b.status')) as { status: string } | undefined;
  if (!row) return 'signed';
  return row.status === 'confirmed' ? 'anchored' : 'anchoring';
}
