/**
 * A sign job's audit events. The actor is whoever asked for the job (the user or API key), since the worker signs on
 * their behalf; the details say the worker performed it.
 */
import type { Knex } from 'knex';
import { signJobRequester } from '../db/repositories/sign-jobs.js';
import { recordAuditEvent } from './record.js';
import type { AuditActor, AuditOutcome } from './vocabulary.js';

export function requesterActor(job: { user_id: string | null; api_key_id: string | null }): AuditActor {
  if (job.api_key_id) return { type: 'api_key', id: job.api_key_id };
  if (job.user_id) return { type: 'user', id: job.user_id };
  return { type: 'service', role: 'worker' };
}

export async function recordSignJobOutcome(
  trx: Knex.Transaction,
  jobId: string,
  action: 'sign.signed' | 'sign.failed',
  outcome: AuditOutcome,
  details: Record<string, unknown>,
): Promise<void> {
  const job = await signJobRequester(jobId, trx);
  if (!job) return;
  await recordAuditEvent(trx, { action, actor: requesterActor(job), orgId: job.org_id, target: { type: 'sign_job', id: jobId }, outcome, details: { ...details, performed_by: 'worker' } });
}
