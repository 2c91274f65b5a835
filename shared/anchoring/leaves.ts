/**
 * Files joining the pending anchor batch. A signed file's hash is added in the same database transaction that
 * records the signed file (insertAnchorLeaf), so no signed file can exist without its leaf; `enrolMissingLeaves`
 * (run when the anchoring job starts) covers anything older.
 */
import type { Knex } from 'knex';
import { batchStatusOfFile, insertLeavesFrom, leafOfFileQuery } from '../db/repositories/anchors.js';
import { signedFileIdOfJobQuery, signedFilesWithoutQuery } from '../db/repositories/sign-jobs.js';
import type { JobStatus } from '../job-status.js';

/** Adds every signed file that has no leaf yet (none should exist; this is the safety net). Returns how many. */
export async function enrolMissingLeaves(knex: Knex): Promise<number> {
  return insertLeavesFrom(signedFilesWithoutQuery((fileId) => leafOfFileQuery(fileId, knex), knex), knex);
}

/**
 * The status a job with a signed file should show, from its file's anchor: signed (waiting in the pending batch),
 * anchoring (batch sealed, transaction on its way) or anchored. The batch row is read FOR SHARE, so a batch being
 * confirmed at the same moment is seen either before (and then updates this job after us) or after.
 */
export async function statusAfterSigning(trx: Knex.Transaction, jobId: string): Promise<Extract<JobStatus, 'signed' | 'anchoring' | 'anchored'>> {
  const status = await batchStatusOfFile(signedFileIdOfJobQuery(jobId, trx), trx);
  if (!status) return 'signed';
  return status === 'confirmed' ? 'anchored' : 'anchoring';
}
