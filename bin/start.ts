/**
 * `npm start`: every role in one process on embedded defaults, so a newcomer gets a working service with
 * no servers. Production runs each role as its own process (Procfile).
 */
import { startApi } from '../api/server.js';
import { startOcspRole } from '../ocsp/role.js';
import { startSchedulerRole } from '../scheduler/role.js';
import { recordStartup } from '../shared/audit/startup.js';
import { openDatabase } from '../shared/db/index.js';
import { certificateLogFields } from '../shared/pki/certificate-log.js';
import { initPki } from '../shared/pki/init.js';
import { createPkiEvents } from '../shared/pki/pki-events.js';
import { BullMqSignQueue } from '../shared/queue/bullmq-sign-queue.js';
import { EmbeddedSignQueue } from '../shared/queue/embedded-sign-queue.js';
import { LocalJobEvents, RedisJobEvents } from '../shared/queue/job-events.js';
import { redisAnswers } from '../shared/redis.js';
import { runMain } from '../shared/run-main.js';
import { reportQueueDepth, reportWebhookQueueDepth } from '../shared/metrics/metrics.js';
import { startOpsServer } from '../shared/ops/ops-server.js';
import { createFileStore } from '../shared/storage/index.js';
import { createKeyVault } from '../shared/vault/index.js';
import { inlineSignProcessor, startWorkerRole } from '../workers/role.js';
import { sweepSigningLeftovers } from '../workers/sign-job/deps.js';
import { logDocumentThumbnails } from '../workers/document-thumbnails.js';
import { logVideoThumbnails } from '../workers/video-thumbnails.js';
import { startWebhookDelivery } from '../workers/webhook-delivery.js';
import { startEmbeddedChainIfNeeded } from '../shared/chain/embedded.js';

runMain('all-in-one', async (givenConfig, logger) => {
  const vault = createKeyVault(givenConfig);
  const files = createFileStore(givenConfig);
  // The Azure drivers import their SDKs now rather than at the first call: a setting the SDK refuses stops the start.
  await Promise.all([files.load?.(), vault.load?.()]);
  // No CHAIN_RPC_URL: a local anvil chain (stopped on shutdown), and the config points the roles at it.
  const chain = await startEmbeddedChainIfNeeded(givenConfig, logger.child({ role: 'chain' }));
  const config = chain.config;
  const knex = await openDatabase(config);
  const pkiEvents = createPkiEvents(config, knex, logger);
  const pki = await initPki({ knex, vault, config, events: pkiEvents, logger });
  logger.info({ issued: pki.issued.map(certificateLogFields) }, 'PKI ready');
  // Trust services (OCSP, CRLs and the RFC 3161 TSA) first: every sign job asks the TSA for a timestamp, and
  // recovered or queued jobs may start as soon as the queue below exists.
  const stopOcsp = await startOcspRole(config, knex, vault, logger.child({ role: 'ocsp' }), { events: pkiEvents });

  const useRedis = await redisAnswers(config.redisUrl);
  const jobEvents = useRedis ? new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: true }) : new LocalJobEvents();
  const processor = inlineSignProcessor({ config, knex, vault, events: jobEvents, logger: logger.child({ role: 'worker' }) });
  const retry = { attempts: config.signAttempts, backoffMs: config.signBackoffMs };

  let signQueue;
  let stopWorker: () => Promise<void>;
  if (useRedis) {
    signQueue = new BullMqSignQueue(config.redisUrl, config.queuePrefix, retry);
    // The embedded database belongs to this process, so PGlite runs jobs inline; Postgres uses sandbox processes.
    stopWorker = await startWorkerRole(config, knex, logger, { events: jobEvents, inline: config.databaseUrl ? undefined : processor });
  } else {
    logger.warn({ redisUrl: config.redisUrl }, 'no Redis answers: using the in-process queue (job state in the database)');
    await sweepSigningLeftovers(config, logger);
    // Jobs a previous run left queued or half-done are put back by the scheduler's reconciler at its start.
    const embedded = new EmbeddedSignQueue(processor, { ...retry, concurrency: config.workerConcurrency });
    await logVideoThumbnails(config.ffmpegPath, logger);
    await logDocumentThumbnails(config.pdftoppmPath, logger);
    // Webhook deliveries through the in-process queue too, fed by the relay from the database.
    const webhooks = await startWebhookDelivery(config, knex, logger.child({ role: 'worker' }), { embedded: true });
    reportWebhookQueueDepth(() => webhooks.queue.counts());
    signQueue = embedded;
    stopWorker = async () => {
      await embedded.close();
      await webhooks.stop();
    };
  }

  reportQueueDepth(() => signQueue.counts());
  // One operator listener for every role of this process.
  const ops = await startOpsServer(config, logger, { queue: signQueue instanceof BullMqSignQueue ? signQueue.queue : undefined });
  const api = await startApi(config, { knex, logger, signQueue, jobEvents, files, vault }, { verifySupervisor: 'on-demand' });
  const stopScheduler = await startSchedulerRole(config, knex, vault, logger.child({ role: 'scheduler' }), { signQueue, events: pkiEvents });
  await recordStartup(knex, ['web', 'worker', 'scheduler', 'ocsp'], config);
  logger.info({ api: config.baseUrl, ocsp: config.ocspUrl, crl: config.crlUrl, tsa: config.tsaUrl, docs: `${config.baseUrl}/docs` }, 'service ready');

  return async () => {
    await api.close();
    await ops.close();
    await stopWorker();
    await signQueue.close();
    await stopScheduler();
    await stopOcsp();
    await jobEvents.close();
    await pkiEvents.close();
    await knex.destroy();
    await chain.stop();
  };
});
