import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { childModule } from '../shared/paths.js';
import { createRedis } from '../shared/redis.js';
import { SIGN_QUEUE_NAME, type SignProcessor } from '../shared/queue/types.js';
import { startSandboxes } from './sandbox-pool.js';
import { logDocumentThumbnails } from './document-thumbnails.js';
import { logVideoThumbnails } from './video-thumbnails.js';

/** How long SIGTERM waits for running jobs before releasing them to other workers. */
export const DRAIN_TIMEOUT_MS = 20_000;

const SANDBOX = childModule(import.meta.url, 'sign-sandbox');

export interface SignWorkerOptions {
  /**
   * Run jobs with this function on the main thread instead of sandbox processes. Only for the embedded
   * database (PGlite), which one thread must own; elsewhere the sandbox keeps CPU work off the main thread.
   */
  inlineProcessor?: SignProcessor;
  /** Called when BullMQ gives a job up without our processor having recorded it (e.g. stalled too often). */
  onGaveUp(jobId: string, reason: string): Promise<void>;
}

export interface RunningSignWorker {
  close(timeoutMs: number): Promise<void>;
}

/**
 * The BullMQ side of a worker process. By default jobs run in sandboxed child processes that BullMQ keeps
 * and reuses (workers/sign-sandbox.ts): C2PA signing is CPU work, and on the main thread it would delay BullMQ's
 * lock renewal and make a healthy job look stalled. A killed process's jobs become stalled and are
 * picked up again by any worker after the lock expires. Resolves once the worker takes jobs, with its
 * sandbox processes already started (one per unit of concurrency).
 */
export async function startBullMqSignWorker(config: Config, logger: Logger, options: SignWorkerOptions): Promise<RunningSignWorker> {
  const inline = options.inlineProcessor;
  const processor = inline
    ? async (job: Job<{ jobId: string }>) => {
        const number = job.attemptsMade + 1;
        await inline(job.data.jobId, { number, final: number >= (job.opts.attempts ?? 1) });
      }
    : SANDBOX.modulePath;
  const worker = new Worker(SIGN_QUEUE_NAME, processor, {
    connection: createRedis(config.redisUrl),
    prefix: config.queuePrefix,
    concurrency: config.workerConcurrency,
    // Child processes rather than worker threads: threads do not inherit the TypeScript loader (tsx).
    useWorkerThreads: false,
    lockDuration: config.workerLockMs,
    stalledInterval: Math.round(config.workerLockMs / 2),
    maxStalledCount: 2,
    autorun: false,
    // GC in the sandbox's own thread: V8's helper threads (concurrent marking of a 35 MB heap after every few
    // multi-megabyte files) took CPU from the other sandboxes, a core's worth of work split over more threads
    // than cores. Pauses do not matter there: BullMQ's lock renewal runs in this process, not the child.
    workerForkOptions: { execArgv: [...SANDBOX.execArgv, '--single-threaded-gc'] },
  });
  worker.on('failed', (job, err) => {
    logger.warn({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message }, 'sign job attempt failed');
    if (job?.id && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      options.onGaveUp(job.id, err.message).catch((e: unknown) => logger.error({ err: e }, 'could not record a failed job'));
    }
  });
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  if (!inline) await startSandboxes(worker, SANDBOX.modulePath, config.workerConcurrency, { wasmBytes: config.workerRecycleWasmBytes, idleMs: config.workerRecycleIdleMs }, logger);
  worker.run().catch((err: unknown) => logger.error({ err }, 'sign worker stopped'));
  // Awaited (tens of ms) so the probe's process is gone before the worker counts as started.
  await logVideoThumbnails(config.ffmpegPath, logger);
  await logDocumentThumbnails(config.pdftoppmPath, logger);
  logger.info({ concurrency: config.workerConcurrency, sandboxed: !inline }, 'sign worker started (BullMQ)');
  return {
    /** Stops taking jobs and waits for running ones; after timeoutMs they are left for another worker. */
    async close(timeoutMs: number) {
      const graceful = worker.close();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
      if ((await Promise.race([graceful, timer])) === 'timeout') {
        logger.warn('running jobs did not finish in time; releasing them to other workers');
        await worker.close(true);
      }
    },
  };
}
