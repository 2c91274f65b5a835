import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { PkiDeps } from '../shared/pki/pki-deps.js';
import type { KeyVault } from '../shared/vault/types.js';
import { startAnchoringFromConfig } from './anchor-job.js';
import { startCrlJob, type CrlJob } from './crl-job.js';
import { startExpiryNoticeJob } from './expiry-notice-job.js';
import { startIssuanceJob } from './issuance-job.js';
import { startReconcileJob } from './reconcile-job.js';
import { startUploadSweepJob } from './upload-sweep-job.js';
import { createResumableStore } from '../shared/storage/index.js';
import { registerCrlAgeCollector } from '../shared/pki/crl-age.js';
import { createPkiEvents } from '../shared/pki/pki-events.js';
import type { SignQueue } from '../shared/queue/types.js';

/**
 * The scheduler role's jobs (organisations' certificates, CRL publication, on-chain anchoring and, given the sign
 * queue, its reconciliation with Postgres); returns a function that stops them. It holds the CA keys: it is the only
 * role that issues. It also sweeps abandoned resumable uploads.
 */
export async function startSchedulerRole(
  config: PkiDeps['config'] & Pick<Config, 'crlSchedule' | 'dataDir' | 'nodeEnv' | 'baseUrl' | 'databaseUrl' | 'chainRpcUrl' | 'chainPrivateKey' | 'chainId' | 'anchor' | 'reconcileIntervalMs' | 'workerLockMs' | 'webhooks' | 'blobStorage' | 'uploadSweepIntervalMs'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
  options: { signQueue?: SignQueue } = {},
): Promise<() => Promise<void>> {
  // Revocations the web role asks for (identity certificates) are announced to the OCSP responders from here.
  const pkiEvents = createPkiEvents(config, knex, logger);
  const issuanceJob = startIssuanceJob({ knex, vault, config, events: pkiEvents }, logger.child({ job: 'issuance' }));
  const crlJob: CrlJob = startCrlJob({ knex, vault, config }, logger.child({ job: 'crl' }), { schedule: config.crlSchedule });
  logger.info({ schedule: config.crlSchedule }, 'CRL publication scheduled');
  let anchorJob;
  try {
    anchorJob = startAnchoringFromConfig(config, knex, logger.child({ job: 'anchor' }));
  } catch (err) {
    await crlJob.stop();
    await issuanceJob.stop();
    throw err;
  }
  const reconcileJob = options.signQueue
    ? startReconcileJob({ knex, queue: options.signQueue, processingGraceMs: config.workerLockMs }, logger.child({ job: 'reconcile' }), config.reconcileIntervalMs)
    : undefined;
  const uploadSweepJob = startUploadSweepJob(knex, createResumableStore(config), logger.child({ job: 'upload-sweep' }), config.uploadSweepIntervalMs);
  const expiryJob = startExpiryNoticeJob(knex, config.webhooks.certificateExpiringDays, logger.child({ job: 'expiry-notices' }));
  // The scheduler issues the CRLs: it reports their age, as the CRL host does.
  const unregisterCrlAge = registerCrlAgeCollector(knex);
  return async () => {
    unregisterCrlAge();
    await expiryJob.stop();
    await uploadSweepJob.stop();
    await reconcileJob?.stop();
    await anchorJob?.stop();
    await crlJob.stop();
    await issuanceJob.stop();
    await pkiEvents.close();
  };
}
