import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Worker, type Child, type ChildPool, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { ffmpegVersion } from '../shared/media/video-frame.js';
import { createRedis } from '../shared/redis.js';
import { SIGN_QUEUE_NAME, type SignProcessor } from '../shared/queue/types.js';
import { collectSandboxMetrics } from './sandbox-metrics.js';

/** How long SIGTERM waits for running jobs before releasing them to other workers. */
export const DRAIN_TIMEOUT_MS = 20_000;

const SANDBOX = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sign-sandbox.ts');

/** The message a sandbox sends after every job with the size of its WASM memory (sign-sandbox.ts). */
export const WASM_MEMORY_MESSAGE = 'mss:wasm-memory';
export interface WasmMemoryMessage {
  cmd: typeof WASM_MEMORY_MESSAGE;
  bytes: number;
}


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
 * Forks and initialises `count` sandbox processes and puts them in BullMQ's pool as free children, before the
 * worker takes its first job. BullMQ forks a child only when a job needs one, so a new worker would otherwise
 * start a child (tsx, the modules, the 9 MB C2PA WASM: about a second of CPU each) in the middle of its first
 * burst of jobs, taking that CPU from the children already signing. The pool is private in BullMQ's types but
 * has been the same since v4; if it is ever missing, children are forked on demand as before.
 */
/** When a sandbox that grew large is ended (WORKER_RECYCLE_WASM_BYTES, WORKER_RECYCLE_IDLE_MS). */
export interface SandboxRecycling {
  wasmBytes: number;
  idleMs: number;
}

/*
 * Sandboxes that signed a large file are ended once idle. WebAssembly memory never shrinks: c2pa-wasm holds a file
 * several times over while it signs (a 256 MiB MP4: 1 GiB of WASM memory, a 200 MiB WAV: 1.2 GiB), and a process that
 * once signed a large video would keep that for good. A sandbox past `wasmBytes` after its job stays in the pool
 * while jobs keep coming (warm memory pays: a fresh process signs its first 200 MiB WAV in about 7.5 s, a warm one in
 * 1.3 s) and is ended once it has been idle for `idleMs` (0: at once). Images stay below the default 512 MiB. The pool
 * forks a fresh sandbox when a job needs one (about a second of CPU).
 */
async function startSandboxes(worker: Worker, count: number, recycling: SandboxRecycling, logger: Logger): Promise<void> {
  const pool = (worker as unknown as { childPool?: Pick<ChildPool, 'retain' | 'release' | 'kill'> }).childPool;
  if (!pool) {
    logger.warn('BullMQ has no child pool to fill: sandbox processes start with the first jobs (and report no metrics)');
    return;
  }
  const wasmBytes = new WeakMap<Child, number>();
  const idleTimers = new Map<Child, NodeJS.Timeout>();
  const end = (child: Child) => {
    logger.info({ pid: child.pid, wasmMiB: Math.round((wasmBytes.get(child) ?? 0) / 2 ** 20) }, 'ending a sandbox process whose WASM memory grew with a large file');
    pool.kill(child, 'SIGTERM').catch((err: unknown) => logger.warn({ err, pid: child.pid }, 'could not end a sandbox process'));
  };
  // Every child the pool hands out, including replacements of crashed ones, reports its metrics to this process.
  const retain = pool.retain.bind(pool);
  pool.retain = async (processFile: string) => {
    const child = await retain(processFile);
    // Busy again: not idle.
    clearTimeout(idleTimers.get(child));
    idleTimers.delete(child);
    collectSandboxMetrics(child);
    watchWasmMemory(child, wasmBytes);
    return child;
  };
  // BullMQ releases a child right after its job (the child's WASM report arrived before its result).
  const release = pool.release.bind(pool);
  pool.release = (child: Child) => {
    if ((wasmBytes.get(child) ?? 0) <= recycling.wasmBytes) return release(child);
    if (recycling.idleMs === 0) return end(child);
    release(child);
    // Still free when the timer fires (a retain would have cleared it): ended, which also takes it out of the pool,
    // in the same turn of the event loop, so no job can be handed to it in between.
    idleTimers.set(
      child,
      setTimeout(() => {
        idleTimers.delete(child);
        end(child);
      }, recycling.idleMs).unref(),
    );
  };
  const children = await Promise.all(Array.from({ length: count }, () => pool.retain(SANDBOX)));
  for (const child of children) pool.release(child);
}

const watchedWasm = new WeakSet<Child>();

function watchWasmMemory(child: Child, wasmBytes: WeakMap<Child, number>): void {
  if (watchedWasm.has(child)) return;
  watchedWasm.add(child);
  child.on('message', (msg: unknown) => {
    const m = msg as Partial<WasmMemoryMessage> | null;
    if (m?.cmd === WASM_MEMORY_MESSAGE && typeof m.bytes === 'number') wasmBytes.set(child, m.bytes);
  });
}

/** Says once, at start, whether video will get claim thumbnails here (rather than in a warning per job). */
export async function logVideoThumbnails(ffmpegPath: string | undefined, logger: Logger): Promise<void> {
  if (!ffmpegPath) return logger.info('FFMPEG_PATH=off: video is signed without claim thumbnails');
  const version = await ffmpegVersion(ffmpegPath);
  if (version) logger.info({ ffmpeg: version }, 'video claim thumbnails: frames taken by ffmpeg');
  else logger.warn({ ffmpegPath }, 'ffmpeg cannot be run (FFMPEG_PATH): video is signed without claim thumbnails; install Debian\'s ffmpeg or set FFMPEG_PATH');
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
    : SANDBOX;
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
    workerForkOptions: { execArgv: [...process.execArgv, '--single-threaded-gc'] },
  });
  worker.on('failed', (job, err) => {
    logger.warn({ jobId: job?.id, attemptsMade: job?.attemptsMade, err: err.message }, 'sign job attempt failed');
    if (job?.id && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      options.onGaveUp(job.id, err.message).catch((e: unknown) => logger.error({ err: e }, 'could not record a failed job'));
    }
  });
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  if (!inline) await startSandboxes(worker, config.workerConcurrency, { wasmBytes: config.workerRecycleWasmBytes, idleMs: config.workerRecycleIdleMs }, logger);
  worker.run().catch((err: unknown) => logger.error({ err }, 'sign worker stopped'));
  // Awaited (tens of ms) so the probe's process is gone before the worker counts as started.
  await logVideoThumbnails(config.ffmpegPath, logger);
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
