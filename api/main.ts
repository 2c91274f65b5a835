/** The web process (Procfile `web`): the API, queueing sign jobs on BullMQ; its operator listener on OPS_PORT. */
import { reportQueueDepth } from '../shared/metrics/metrics.js';
import { startOpsServer } from '../shared/ops/ops-server.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { runRoleProcess } from '../shared/run-main.js';
import { createFileStore } from '../shared/storage/index.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startApi } from './server.js';

runRoleProcess('web', async (config, knex, logger) => {
  const files = createFileStore(config);
  const vault = createKeyVault(config);
  // The Azure drivers import their SDKs now rather than at the first request: a setting the SDK refuses stops the start.
  await Promise.all([files.load?.(), vault.load?.()]);
  const signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  const jobEvents = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: true });
  reportQueueDepth(() => signQueue.counts());
  const ops = await startOpsServer(config, logger, { queue: signQueue.queue });
  const api = await startApi(config, { knex, logger, signQueue, jobEvents, files, vault });
  return async () => {
    await api.close();
    await ops.close();
    await signQueue.close();
    await jobEvents.close();
  };
});
