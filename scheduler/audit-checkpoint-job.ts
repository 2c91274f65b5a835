/**
 * The audit log's checkpoints: every AUDIT_CHECKPOINT_SECONDS (and at start), a signed checkpoint when the log grew.
 * The key (AUDIT_KEY_NAME) lives in the scheduler's vault; no other role signs checkpoints. Several schedulers may
 * race for one size: the checkpoint's primary key keeps one, the other run fails and the next interval moves on.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createCheckpointer } from '../shared/audit-log/checkpointer.js';
import type { Config } from '../shared/config.js';
import type { KeyVault } from '../shared/vault/types.js';
import { startPeriodic, type PeriodicJob } from './periodic.js';

export function startAuditCheckpointJob(knex: Knex, vault: KeyVault, config: Pick<Config, 'audit'>, logger: Logger): PeriodicJob {
  let checkpointer: ReturnType<typeof createCheckpointer> | undefined;
  return startPeriodic(
    async () => {
      checkpointer ??= createCheckpointer({ knex, key: await vault.ensureKey(config.audit.keyName), origin: config.audit.origin });
      const size = await checkpointer.checkpoint();
      if (size !== undefined) logger.info({ treeSize: size, origin: config.audit.origin }, 'audit checkpoint signed');
    },
    config.audit.checkpointSeconds * 1000,
    logger,
    'audit checkpoint failed',
  );
}
