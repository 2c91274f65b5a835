/**
 * A sign job, as a worker runs it: claim, prepare, fingerprint, sign, store and complete (workers/sign-job/), each
 * stage timed. Safe to run again for the same job (a retry, or a job re-delivered after a worker was killed): a job
 * already signed is left as it is, and the unique job_id on signed_files keeps exactly one signed file per job.
 */
import { recordSignJobOutcome } from '../shared/audit/sign-jobs.js';
import { recordJobEvents } from '../shared/anchoring/job-webhooks.js';
import { claimSignJob, failPendingSignJob } from '../shared/db/repositories/sign-jobs.js';
import type { SignAttempt } from '../shared/queue/types.js';
import { completeSignJob, storeSignedFile } from './sign-job/complete.js';
import type { SignJobDeps } from './sign-job/deps.js';
import { recordFailedAttempt, reportSigned } from './sign-job/outcome.js';
import { prepareSignJob } from './sign-job/prepare.js';
import { fingerprintMedia, signMedia } from './sign-job/sign-media.js';
import { stageClock } from './sign-job/stage-clock.js';
import { jobWorkspace } from './sign-job/workspace.js';

export async function processSignJob(deps: SignJobDeps, jobId: string, attempt: SignAttempt): Promise<void> {
  const clock = stageClock();
  const job = await claimSignJob(jobId, attempt.number, deps.knex);
  if (!job) return;
  const log = deps.logger.child({ jobId, attempt: attempt.number });
  const workspace = jobWorkspace(deps.tempDir, jobId);
  try {
    const prepared = await prepareSignJob(deps, job, workspace);
    clock.lap('prepare');
    const content = await fingerprintMedia(deps, prepared, log);
    clock.lap('fingerprint');
    const signed = await signMedia(deps, prepared, content, workspace, log);
    clock.lap('sign');
    const stored = await storeSignedFile(deps, prepared, signed);
    const kept = await completeSignJob(deps, prepared, signed, content.fingerprint, stored);
    clock.lap('store');
    if (!kept) {
      // Another run of this job recorded its file first (a job re-delivered while the first run was still going).
      log.warn({ serial: prepared.identity.serial }, 'signed by a duplicate run of the job; this copy was discarded');
      return;
    }
    reportSigned(log, { serial: prepared.identity.serial, bytes: signed.size }, clock);
  } catch (err) {
    await recordFailedAttempt(deps, jobId, attempt, err, log);
    throw err;
  } finally {
    await workspace.remove().catch((err: unknown) => log.warn({ err }, "could not remove the job's temp files"));
    await deps.events.publish(jobId).catch(() => undefined);
  }
}

/** Records a job BullMQ gave up on outside our processor (e.g. its worker died too often). */
export async function markAbandoned(deps: Pick<SignJobDeps, 'knex' | 'events' | 'baseUrl'>, jobId: string): Promise<void> {
  const failed = await deps.knex.transaction(async (trx) => {
    const changed = await failPendingSignJob(jobId, { error_code: 'worker_lost', error_message: 'the worker signing this file stopped repeatedly' }, trx);
    if (changed) {
      await recordJobEvents(trx, deps.baseUrl, 'sign_job.failed', [jobId]);
      await recordSignJobOutcome(trx, jobId, 'sign.failed', 'failure', { error_code: 'worker_lost' });
    }
    return changed;
  });
  if (failed) await deps.events.publish(jobId);
}
