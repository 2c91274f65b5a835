/**
 * Postgres is the source of truth for sign jobs; Redis only carries them to workers. This job puts back every job
 * that Postgres holds as queued or processing but the queue has lost: Redis flushed, restarted without
 * persistence or failed over to a replica that missed writes, or a crash between the row insert and the enqueue.
 *
 * It runs at start and every RECONCILE_INTERVAL_MS, in a transaction holding a Postgres advisory lock (tried, not
 * awaited: with two schedulers one run happens and the other skips). A job keeps its id, so BullMQ never holds it
 * twice, and a worker only claims a job whose row is still queued or processing: a job signs at most once.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pendingSignJobsPage } from '../shared/db/repositories/sign-jobs.js';
import { reconciledJobs } from '../shared/metrics/metrics.js';
import type { SignQueue } from '../shared/queue/types.js';
import { startPeriodic, type PeriodicJob } from './periodic.js';

/** Advisory lock key: "JOB" in ASCII, then the reconciler's number. */
const LOCK = [0x4a4f42, 1] as const;
const PAGE = 1000;

export interface ReconcileDeps {
  knex: Knex;
  queue: SignQueue;
  /**
   * A `processing` row newer than this may still be in a worker's hands even though its queue entry is gone (a
   * flush during the job); it is left alone until then (WORKER_LOCK_MS: the time a killed worker's claim lasts).
   */
  processingGraceMs: number;
}

export interface ReconcileResult {
  /** false when another scheduler held the lock and this run did nothing. */
  ran: boolean;
  checked: number;
  requeued: string[];
}

export async function reconcileSignJobs(deps: ReconcileDeps, now = new Date()): Promise<ReconcileResult> {
  return deps.knex.transaction(async (trx) => {
    const lock = (await trx.first(trx.raw('pg_try_advisory_xact_lock(?::int, ?::int) as locked', [...LOCK]))) as { locked: boolean };
    if (!lock.locked) return { ran: false, checked: 0, requeued: [] };
    const graceEnd = now.getTime() - deps.processingGraceMs;
    const requeued: string[] = [];
    let checked = 0;
    let after: { created_at: Date; id: string } | undefined;
    for (;;) {
      const rows = await pendingSignJobsPage(after, PAGE, trx);
      if (rows.length === 0) break;
      checked += rows.length;
      const live = await deps.queue.liveJobs(rows.map((r) => r.id));
      for (const row of rows) {
        if (live.has(row.id)) continue;
        if (row.status === 'processing' && new Date(row.updated_at).getTime() > graceEnd) continue;
        await deps.queue.requeue(row.id);
        requeued.push(row.id);
      }
      const last = rows[rows.length - 1]!;
      after = { created_at: last.created_at, id: last.id };
      if (rows.length < PAGE) break;
    }
    reconciledJobs.inc(requeued.length);
    return { ran: true, checked, requeued };
  });
}

export function startReconcileJob(deps: ReconcileDeps, logger: Logger, intervalMs: number): PeriodicJob {
  return startPeriodic(
    async () => {
      const result = await reconcileSignJobs(deps);
      if (result.requeued.length > 0) logger.warn({ requeued: result.requeued.length, checked: result.checked, jobIds: result.requeued.slice(0, 20) }, 'sign jobs missing from the queue were enqueued again');
      else if (result.ran) logger.debug({ checked: result.checked }, 'sign queue matches the database');
    },
    intervalMs,
    logger,
    'sign queue reconciliation failed',
  );
}
