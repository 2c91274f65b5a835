import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { KeyVault } from '../shared/vault/types.js';
import { startAnchoringFromConfig } from './anchor-job.js';
import { startCrlJob, type CrlJob } from './crl-job.js';

/** The scheduler role's jobs (CRL publication, on-chain anchoring); returns a function that stops them. */
export async function startSchedulerRole(
  config: Pick<Config, 'crlSchedule' | 'dataDir' | 'nodeEnv' | 'databaseUrl' | 'chainRpcUrl' | 'chainPrivateKey' | 'chainId' | 'anchor'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
): Promise<() => Promise<void>> {
  const crlJob: CrlJob = startCrlJob({ knex, vault, config }, logger.child({ job: 'crl' }), { schedule: config.crlSchedule });
  logger.info({ schedule: config.crlSchedule }, 'CRL publication scheduled');
  let anchorJob;
  try {
    anchorJob = startAnchoringFromConfig(config, knex, logger.child({ job: 'anchor' }));
  } catch (err) {
    await crlJob.stop();
    throw err;
  }
  return async () => {
    await anchorJob?.stop();
    await crlJob.stop();
  };
}
