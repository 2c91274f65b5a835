import type { Logger } from 'pino';
import { recordJobEvents } from '../../shared/anchoring/job-webhooks.js';
import { recordSignJobOutcome } from '../../shared/audit/sign-jobs.js';
import { updateSignJobStatus } from '../../shared/db/repositories/sign-jobs.js';
import { kindOf, ServiceError, type ErrorKind } from '../../shared/errors.js';
import { signJobs, signStageSeconds } from '../../shared/metrics/metrics.js';
import type { SignAttempt } from '../../shared/queue/types.js';
import type { SignJobDeps } from './deps.js';
import type { StageClock } from './stage-clock.js';

/**
 * The job edge: whether a failed attempt is retried, by the error's kind. The file or request itself at fault (an
 * image over the pixel limit, say) is final at once, as no retry can help; outages and the service's own failures
 * are retried until the last attempt.
 */
export const JOB_RETRIES: Record<ErrorKind, boolean> = {
  invalid: false,
  unauthenticated: false,
  forbidden: false,
  not_found: false,
  conflict: true,
  too_large: false,
  unsupported: false,
  unprocessable: false,
  rate_limited: true,
  unavailable: true,
  internal: true,
};

/** The code and words a failed job shows its owner (the error's own); internals stay in the log. */
function errorColumns(err: unknown): { error_code: string; error_message: string } {
  if (err instanceof ServiceError) return { error_code: err.code, error_message: err.publicMessage };
  return { error_code: 'signing_failed', error_message: 'the file could not be signed' };
}

/**
 * Where the time went, for operators: prepare (claim, read, identity, settings), fingerprint, sign (c2pa-rs, vault,
 * TSA), store (the signed file and its rows). CPU is the process's, so a job's own where one process runs one job at
 * a time (the sandboxed worker).
 */
export function reportSigned(log: Logger, facts: { serial: string; bytes: number }, clock: StageClock): void {
  log.info({ ...facts, ms: clock.ms, cpu: clock.cpuMs }, 'signed');
  signJobs.inc({ outcome: 'signed', error_code: '' });
  for (const [stage, ms] of Object.entries(clock.ms)) signStageSeconds.observe({ stage }, ms / 1000);
}

/**
 * Records a failed attempt: the job is failed for good on its last attempt (or at once when its kind says no retry
 * can help, JOB_RETRIES), else waiting again, so it shows as queued.
 */
export async function recordFailedAttempt(deps: SignJobDeps, jobId: string, attempt: SignAttempt, err: unknown, log: Logger): Promise<void> {
  const final = attempt.final || !JOB_RETRIES[kindOf(err)];
  log.warn({ err }, final ? 'sign job failed for good' : 'sign attempt failed; will retry');
  signJobs.inc({ outcome: final ? 'failed' : 'retried', error_code: errorColumns(err).error_code });
  if (!final) return updateSignJobStatus(jobId, { status: 'queued' }, deps.knex);
  await deps.knex.transaction(async (trx) => {
    await updateSignJobStatus(jobId, { status: 'failed', ...errorColumns(err) }, trx);
    await recordJobEvents(trx, deps.baseUrl, 'sign_job.failed', [jobId]);
    await recordSignJobOutcome(trx, jobId, 'sign.failed', 'failure', { error_code: errorColumns(err).error_code, attempts: attempt.number });
  });
}
