/**
 * Abandoned resumable uploads: a session no byte has reached for UPLOAD_EXPIRY_HOURS is removed, its bytes first
 * (DATA_DIR/resumable or Blob Storage), then its row, so that no bytes are ever left without a row naming them.
 * Completed sessions, kept so that a client that lost its last answer can still find its upload, go the same way.
 * Runs at start and every UPLOAD_SWEEP_INTERVAL_MS. Two schedulers may run it at once: removing is idempotent, and a
 * session whose lease a request holds is left for the next run.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { deleteUploadSession, expiredUploadSessions } from '../shared/db/repositories/upload-sessions.js';
import type { ResumableStore } from '../shared/storage/index.js';
import { startPeriodic, type PeriodicJob } from './periodic.js';

const PAGE = 500;

/** Removes every expired session and its bytes; returns how many. */
export async function sweepExpiredUploads(knex: Knex, store: Pick<ResumableStore, 'remove'>): Promise<number> {
  let removed = 0;
  for (;;) {
    const sessions = await expiredUploadSessions(PAGE, knex);
    for (const session of sessions) {
      await store.remove(session.id);
      await deleteUploadSession(session.id, knex);
    }
    removed += sessions.length;
    if (sessions.length < PAGE) return removed;
  }
}

/** The sweep at start and every `intervalMs`. */
export function startUploadSweepJob(knex: Knex, store: ResumableStore, logger: Logger, intervalMs: number): PeriodicJob {
  return startPeriodic(
    async () => {
      const removed = await sweepExpiredUploads(knex, store);
      if (removed > 0) logger.info({ removed, store: store.kind }, 'expired resumable uploads removed');
    },
    intervalMs,
    logger,
    'sweeping expired resumable uploads failed',
  );
}
