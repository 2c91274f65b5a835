/** The worker process (Procfile `worker`): signs queued jobs; run as many as load needs. */
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runRoleProcess } from '../shared/run-main.js';
import { DRAIN_TIMEOUT_MS, startBullMqSignWorker } from './bullmq-sign-worker.js';
import { markAbandoned } from './sign-job.js';

runRoleProcess('worker', async (config, knex, logger) => {
  const events = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: false });
  const worker = await startBullMqSignWorker(config, logger, { onGaveUp: (jobId) => markAbandoned({ knex, events }, jobId) });
  return async () => {
    await worker.close(DRAIN_TIMEOUT_MS);
    await events.close();
  };
});
