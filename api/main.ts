/** The web process (Procfile `web`): the API, queueing sign jobs on BullMQ. */
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runRoleProcess } from '../shared/run-main.js';
import { startApi } from './server.js';

runRoleProcess('web', async (config, knex, logger) => {
  const signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  const jobEvents = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: true });
  const api = await startApi(config, { knex, logger, signQueue, jobEvents });
  return async () => {
    await api.close();
    await signQueue.close();
    await jobEvents.close();
  };
});
