/**
 * The scheduler process (Procfile `scheduler`): weekly CRL generation, on-chain anchoring and the sign queue's
 * reconciliation with Postgres; safe to run more than one.
 */
import { reportQueueDepth } from '../shared/metrics/metrics.js';
import { startOpsServer } from '../shared/ops/ops-server.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { runRoleProcess } from '../shared/run-main.js';
import { createKeyVault } from '../shared/vault/index.js';
import { startSchedulerRole } from './role.js';

runRoleProcess('scheduler', async (config, knex, logger) => {
  const vault = createKeyVault(config);
  // Azure Key Vault's SDK imported now: a setting it refuses stops the start.
  await vault.load?.();
  const signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, { attempts: config.signAttempts, backoffMs: config.signBackoffMs });
  reportQueueDepth(() => signQueue.counts());
  const ops = await startOpsServer(config, logger, { queue: signQueue.queue });
  const stop = await startSchedulerRole(config, knex, vault, logger, { signQueue });
  return async () => {
    await stop();
    await ops.close();
    await signQueue.close();
  };
});
