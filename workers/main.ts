/** The worker process (Procfile `worker`): signs queued jobs; run as many as load needs. */
import { reportQueueDepth } from '../shared/metrics/metrics.js';
import { startOpsServer } from '../shared/ops/ops-server.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runRoleProcess } from '../shared/run-main.js';
import { DRAIN_TIMEOUT_MS, startBullMqSignWorker } from './bullmq-sign-worker.js';
import { markAbandoned } from './sign-job.js';
import { sweepSigningLeftovers } from './sign-job-deps.js';

runRoleProcess('worker', async (config, knex, logger) => {
  await sweepSigningLeftovers(config, logger);
  const events = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: false });
  // The queue handle is for operators (depth, Bull Board); this process never adds jobs.
  const queue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  reportQueueDepth(() => queue.counts());
  const ops = await startOpsServer(config, logger, { queue: queue.queue });
  const worker = await startBullMqSignWorker(config, logger, { onGaveUp: (jobId) => markAbandoned({ knex, events }, jobId) });
  return async () => {
    await worker.close(DRAIN_TIMEOUT_MS);
    await ops.close();
    await queue.close();
    await events.close();
  };
});
