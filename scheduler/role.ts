import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { KeyVault } from '../shared/vault/types.js';
import { startCrlJob, type CrlJob } from './crl-job.js';

/** The scheduler role's jobs (today: CRL publication); returns a function that stops them. */
export async function startSchedulerRole(
  config: Pick<Config, 'crlSchedule' | 'dataDir'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
): Promise<() => Promise<void>> {
  const crlJob: CrlJob = startCrlJob({ knex, vault, config }, logger.child({ job: 'crl' }), { schedule: config.crlSchedule });
  logger.info({ schedule: config.crlSchedule }, 'CRL publication scheduled');
  return () => crlJob.stop();
}
