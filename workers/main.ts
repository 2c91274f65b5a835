/** The worker process (Procfile `worker`): signs queued jobs; run as many as load needs. */
import { reportQueueDepth } from '../shared/metrics/metrics.js';
import { startOpsServer } from '../shared/ops/ops-server.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runRoleProcess } from '../shared/run-main.js';
import { startWorkerRole } from './role.js';

runRoleProcess('worker', async (config, knex, logger) => {
  const events = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: false });
  // The queue handle is for operators (depth, Bull Board); this process never adds jobs.
  const queue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  reportQueueDepth(() => queue.counts());
  const ops = await startOpsServer(config, logger, { queue: queue.queue });
  const stop = await startWorkerRole(config, knex, logger, { events });
  return async () => {
    await stop();
    await ops.close();
    await queue.close();
    await events.close();
  };
});
