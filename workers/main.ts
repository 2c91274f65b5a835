import { runMain } from '../shared/run-main.js';
import { startBullMqSignWorker } from './bullmq-sign-worker.js';
import { openDatabase } from '../shared/db/index.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { markAbandoned } from './sign-job.js';

/** How long SIGTERM waits for running jobs before releasing them to other workers. */
const DRAIN_TIMEOUT_MS = 20_000;

runMain('worker', async (config, logger) => {
  if (!config.databaseUrl) {
    throw new Error('a separate worker process needs DATABASE_URL (Postgres); the embedded database is only for `npm start`');
  }
  const knex = await openDatabase(config);
  const events = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: false });
  const worker = startBullMqSignWorker(config, logger, { onGaveUp: (jobId) => markAbandoned({ knex, events }, jobId) });
  return async () => {
    await worker.close(DRAIN_TIMEOUT_MS);
    await events.close();
    await knex.destroy();
  };
});
