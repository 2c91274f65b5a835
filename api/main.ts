import { openDatabase } from '../shared/db/index.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runMain } from '../shared/run-main.js';
import { startApi } from './server.js';

runMain('web', async (config, logger) => {
  if (!config.databaseUrl) {
    throw new Error('a separate web process needs DATABASE_URL (Postgres); the embedded database is only for `npm start`');
  }
  const knex = await openDatabase(config);
  const signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  const jobEvents = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: true });
  const api = await startApi(config, { knex, logger, signQueue, jobEvents });
  return async () => {
    await api.close();
    await signQueue.close();
    await jobEvents.close();
    await knex.destroy();
  };
});
