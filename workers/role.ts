import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { JobEvents, SignProcessor } from '../shared/queue/types.js';
import type { KeyVault } from '../shared/vault/types.js';
import { DRAIN_TIMEOUT_MS, startBullMqSignWorker } from './bullmq-sign-worker.js';
import { markAbandoned, processSignJob } from './sign-job.js';
import { signJobDeps, sweepSigningLeftovers } from './sign-job/deps.js';
import { startWebhookDelivery } from './webhook-delivery.js';
import { reportWebhookQueueDepth } from '../shared/metrics/metrics.js';

/**
 * Sign jobs run in this process (on its database, vault and event connections) rather than in sandbox processes:
 * for the embedded database, which one process must own, and the in-process queue.
 */
export function inlineSignProcessor(parts: { config: Config; knex: Knex; vault: KeyVault; events: JobEvents; logger: Logger }): SignProcessor {
  const deps = signJobDeps(parts);
  return (jobId, attempt) => processSignJob(deps, jobId, attempt);
}

/**
 * The worker role: delivers webhooks (workers/webhook-delivery.ts) and signs the jobs BullMQ hands it, in sandbox processes (each with its own connections and vault
 * client: workers/sign-sandbox.ts) or, given `inline`, in this process. Removes what dead processes' jobs left on
 * disk first. Returns a function that stops taking jobs and waits for running ones (then leaves them to others).
 */
export async function startWorkerRole(
  config: Config,
  knex: Knex,
  logger: Logger,
  options: { events: JobEvents; inline?: SignProcessor },
): Promise<() => Promise<void>> {
  await sweepSigningLeftovers(config, logger);
  const webhooks = await startWebhookDelivery(config, knex, logger, { embedded: false });
  reportWebhookQueueDepth(() => webhooks.queue.counts());
  const worker = await startBullMqSignWorker(config, logger, {
    inlineProcessor: options.inline,
    onGaveUp: (jobId) => markAbandoned({ knex, events: options.events, baseUrl: config.baseUrl }, jobId),
  });
  return async () => {
    await worker.close(DRAIN_TIMEOUT_MS);
    await webhooks.stop();
  };
}
