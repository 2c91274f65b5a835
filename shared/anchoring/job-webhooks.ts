/**
 * Webhook events about sign jobs (sign_job.signed, sign_job.failed, file.anchored), recorded in the transaction that
 * changes the jobs, with the job view the API gives (`data`), as it stands in that transaction.
 */
import type { Knex } from 'knex';
import { signedFilesOfJobIds, signJobsByIds } from '../db/repositories/sign-jobs.js';
import { hasWebhookSubscribers, recordWebhookEvent } from '../db/repositories/webhooks.js';
import type { WebhookEventType } from '../domain/webhook-events.js';
import { renditionPartCounts } from '../db/repositories/rendition-parts.js';
import { jobView, renditionsOf } from './job-view.js';
import { anchorViewsForFiles } from './views.js';

export async function recordJobEvents(trx: Knex.Transaction, baseUrl: string, type: Extract<WebhookEventType, `sign_job.${string}` | 'file.anchored'>, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  const jobs = await signJobsByIds(jobIds, trx);
  const listened = new Map<string, boolean>();
  for (const job of jobs) if (!listened.has(job.org_id)) listened.set(job.org_id, await hasWebhookSubscribers(trx, job.org_id, type));
  const wanted = jobs.filter((j) => listened.get(j.org_id));
  if (wanted.length === 0) return;
  const files = await signedFilesOfJobIds(wanted.map((j) => j.id), trx);
  const fileOf = new Map(files.map((f) => [f.job_id, f]));
  const anchors = await anchorViewsForFiles(trx, baseUrl, files.map((f) => f.id));
  const renditions = renditionsOf(await renditionPartCounts(undefined, 'signed_file_id', files.map((f) => f.id), trx));
  for (const job of wanted) {
    const file = fileOf.get(job.id);
    await recordWebhookEvent(trx, { orgId: job.org_id, type, data: jobView(baseUrl, job, file, file && anchors.get(file.id), file && renditions.get(file.id)) });
  }
}
