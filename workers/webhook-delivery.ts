/**
 * Webhook delivery in a worker process: a BullMQ worker on the webhook queue (deliveries are network waits, so they
 * run on this process's event loop, WEBHOOK_CONCURRENCY at a time) and the outbox relay that feeds the queue. Without
 * Redis (`npm start` alone) the in-process queue takes BullMQ's place, with the same retry policy.
 */
import { Worker, type Job } from 'bullmq';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { createRedis } from '../shared/redis.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { EmbeddedSignQueue } from '../shared/queue/embedded-sign-queue.js';
import { WEBHOOK_QUEUE_NAME, type SignQueue } from '../shared/queue/types.js';
import { deliverWebhook } from '../shared/webhooks/deliver.js';
import { startWebhookRelay } from '../shared/webhooks/relay.js';
import { webhookKey } from '../shared/webhooks/secrets.js';

export interface WebhookDelivery {
  /** The queue deliveries go through (its depth is a metric). */
  queue: SignQueue;
  stop(): Promise<void>;
}

export async function startWebhookDelivery(config: Config, knex: Knex, logger: Logger, options: { embedded: boolean }): Promise<WebhookDelivery> {
  const settings = config.webhooks;
  const log = logger.child({ part: 'webhooks' });
  const deps = { knex, settings, key: webhookKey(config), logger: log };
  const retry = { attempts: settings.attempts, backoffMs: settings.backoffMs };
  let queue: SignQueue;
  let stopWorker: () => Promise<void>;
  if (options.embedded) {
    const embedded = new EmbeddedSignQueue((id, attempt) => deliverWebhook(deps, id, attempt), { ...retry, concurrency: settings.concurrency });
    queue = embedded;
    stopWorker = () => embedded.close();
  } else {
    queue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, retry, WEBHOOK_QUEUE_NAME);
    const worker = new Worker(
      WEBHOOK_QUEUE_NAME,
      async (job: Job<{ jobId: string }>) => {
        const number = job.attemptsMade + 1;
        await deliverWebhook(deps, job.data.jobId, { number, final: number >= (job.opts.attempts ?? 1) });
      },
      {
        connection: createRedis(config.redisUrl),
        prefix: config.queuePrefix,
        concurrency: settings.concurrency,
        // A killed worker's delivery is taken over once its lock lapses; it never got a 2xx recorded, so it is sent again.
        lockDuration: config.workerLockMs,
        stalledInterval: Math.round(config.workerLockMs / 2),
        maxStalledCount: 2,
      },
    );
    worker.on('error', (err) => log.error({ err }, 'webhook worker error'));
    await worker.waitUntilReady();
    stopWorker = async () => {
      await worker.close();
      await queue.close();
    };
  }
  const relay = startWebhookRelay({ knex, queue, useLock: config.databaseUrl !== undefined }, log, settings.relayIntervalMs, config.reconcileIntervalMs);
  log.info({ attempts: settings.attempts, backoffMs: settings.backoffMs, timeoutMs: settings.timeoutMs, embedded: options.embedded }, 'webhook delivery started');
  return {
    queue,
    async stop() {
      await relay.stop();
      await stopWorker();
    },
  };
}
