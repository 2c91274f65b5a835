import type { Logger } from 'pino';
import { C2paError } from '../../shared/c2pa/errors.js';
import { TimeStampTokenError } from '../../shared/tsa/token-check.js';
import { updateSignJobStatus } from '../../shared/db/repositories/sign-jobs.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { signJobs, signStageSeconds } from '../../shared/metrics/metrics.js';
import { NoSigningCertificateError } from '../../shared/pki/signing-identity.js';
import type { SignAttempt } from '../../shared/queue/types.js';
import { StorageUnavailableError } from '../../shared/storage/index.js';
import { TimestampUnavailableError } from '../../shared/tsa/client.js';
import { VaultKeyNotFoundError, VaultUnavailableError } from '../../shared/vault/types.js';
import type { SignJobDeps } from './deps.js';
import type { StageClock } from './stage-clock.js';

/** The code and words a failed job shows its owner; internals stay in the log. */
function errorColumns(err: unknown): { error_code: string; error_message: string } {
  if (err instanceof VaultUnavailableError) return { error_code: 'vault_unavailable', error_message: 'the key vault could not be reached' };
  if (err instanceof VaultKeyNotFoundError) return { error_code: 'vault_key_missing', error_message: 'the signing key is missing from the key vault' };
  if (err instanceof NoSigningCertificateError) return { error_code: 'no_signing_certificate', error_message: err.message };
  if (err instanceof TimestampUnavailableError || err instanceof TimeStampTokenError) {
    return { error_code: 'timestamp_unavailable', error_message: 'the time-stamp authority could not be reached or gave no valid timestamp' };
  }
  if (err instanceof StorageUnavailableError) return { error_code: 'storage_unavailable', error_message: 'file storage could not be reached' };
  if (err instanceof MediaRejectedError && err.reason === 'too_many_pixels') return { error_code: 'image_too_large', error_message: err.message };
  if (err instanceof C2paError) return { error_code: 'c2pa_error', error_message: `the file could not be signed: ${err.message}` };
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
 * Records a failed attempt: the job is failed for good on its last attempt (or at once for an image over the pixel
 * limit, which no retry can help), else waiting again, so it shows as queued.
 */
export async function recordFailedAttempt(deps: SignJobDeps, jobId: string, attempt: SignAttempt, err: unknown, log: Logger): Promise<void> {
  const final = attempt.final || (err instanceof MediaRejectedError && err.reason === 'too_many_pixels');
  log.warn({ err }, final ? 'sign job failed for good' : 'sign attempt failed; will retry');
  signJobs.inc({ outcome: final ? 'failed' : 'retried', error_code: errorColumns(err).error_code });
  await updateSignJobStatus(jobId, final ? { status: 'failed', ...errorColumns(err) } : { status: 'queued' }, deps.knex);
}
