import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { PkiDeps } from '../shared/pki/pki-deps.js';
import type { KeyVault } from '../shared/vault/types.js';
import { startAnchoringFromConfig } from './anchoring.js';
import { startAuditCheckpointJob } from './audit-checkpoint-job.js';
import { startCrlJob, type CrlJob } from './crl-job.js';
import { startExpiryNoticeJob } from './expiry-notice-job.js';
import { startIssuanceJob } from './issuance-job.js';
import { startOcspResponderJob } from './ocsp-responder-job.js';
import { createPkiEvents, type PkiEvents } from '../shared/pki/pki-events.js';
import { startReconcileJob } from './reconcile-job.js';
import { startUploadSweepJob } from './upload-sweep-job.js';
import { createResumableStore } from '../shared/storage/index.js';
import { registerCrlAgeCollector } from '../shared/pki/crl-age.js';
import type { SignQueue } from '../shared/queue/types.js';

/**
 * The scheduler role's jobs (organisations' certificates, CRL publication, on-chain anchoring and, given the sign
 * queue, its reconciliation with Postgres); returns a function that stops them. It holds the CA keys: it is the only
 * role that issues (organisations' certificates and the delegated OCSP responder's, announced on `events` so the OCSP
 * role signs with a new responder at once). It also sweeps abandoned resumable uploads.
 */
export async function startSchedulerRole(
  config: PkiDeps['config'] & Pick<Config, 'crlSchedule' | 'dataDir' | 'nodeEnv' | 'baseUrl' | 'databaseUrl' | 'chainRpcUrl' | 'chainPrivateKey' | 'chainId' | 'anchor' | 'reconcileIntervalMs' | 'workerLockMs' | 'webhooks' | 'blobStorage' | 'uploadSweepIntervalMs' | 'audit'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
  options: { signQueue?: SignQueue; events?: PkiEvents } = {},
): Promise<() => Promise<void>> {
  const resumable = createResumableStore(config);
  // Blob Storage's SDK imported now, before any job starts: a setting it refuses stops the start.
  await resumable.load?.();
  // Certificates the scheduler issues or revokes (the OCSP responder's, identity certificates) are announced to the
  // OCSP responders from here.
  const events = options.events ?? createPkiEvents(config, knex, logger);
  const ocspResponderJob = startOcspResponderJob({ knex, vault, config, events }, logger.child({ job: 'ocsp-responder' }));
  const issuanceJob = startIssuanceJob({ knex, vault, config, events }, logger.child({ job: 'issuance' }));
  const crlJob: CrlJob = startCrlJob({ knex, vault, config }, logger.child({ job: 'crl' }), { schedule: config.crlSchedule });
  logger.info({ schedule: config.crlSchedule }, 'CRL publication scheduled');
  let anchorJob;
  try {
    anchorJob = await startAnchoringFromConfig(config, knex, logger.child({ job: 'anchor' }));
  } catch (err) {
    await crlJob.stop();
    await issuanceJob.stop();
    await ocspResponderJob.stop();
    if (!options.events) await events.close();
    throw err;
  }
  const reconcileJob = options.signQueue
    ? startReconcileJob({ knex, queue: options.signQueue, processingGraceMs: config.workerLockMs }, logger.child({ job: 'reconcile' }), config.reconcileIntervalMs)
    : undefined;
  const uploadSweepJob = startUploadSweepJob(knex, resumable, logger.child({ job: 'upload-sweep' }), config.uploadSweepIntervalMs);
  const auditJob = startAuditCheckpointJob(knex, vault, config, logger.child({ job: 'audit-checkpoint' }));
  const expiryJob = startExpiryNoticeJob(knex, config.webhooks.certificateExpiringDays, logger.child({ job: 'expiry-notices' }));
  // The scheduler issues the CRLs: it reports their age, as the CRL host does.
  const unregisterCrlAge = registerCrlAgeCollector(knex);
  return async () => {
    unregisterCrlAge();
    await expiryJob.stop();
    await auditJob.stop();
    await uploadSweepJob.stop();
    await reconcileJob?.stop();
    await anchorJob?.stop();
    await crlJob.stop();
    await issuanceJob.stop();
    await ocspResponderJob.stop();
    if (!options.events) await events.close();
  };
}
