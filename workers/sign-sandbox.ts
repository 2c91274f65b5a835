// First: a sandbox whose worker died leaves, even one still loading the modules below.
import '../shared/orphan-guard.js';
import type { SandboxedJob } from 'bullmq';
import sharp from 'sharp';
import { warmUpSigning } from '../shared/c2pa/warm-up.js';
import { c2paWasm, c2paWasmMemoryBytes } from '../shared/c2pa/wasm.js';
import { loadConfig } from '../shared/config.js';
import { connectDatabase } from '../shared/db/index.js';
import { createLogger } from '../shared/logger.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import { createKeyVault } from '../shared/vault/index.js';
import { processSignJob } from './sign-job.js';
import { signJobDeps, type SignJobDeps } from './sign-job/deps.js';
import { sendMetricsSnapshot } from './sandbox-metrics.js';
import { WASM_MEMORY_MESSAGE, type WasmMemoryMessage } from './sandbox-pool.js';

// A job cut short by the worker's death is taken over by another worker once its BullMQ lock expires.

// libvips' operation cache would keep a decoded file open after its job removed it.
sharp.cache({ files: 0 });

// Compile the C2PA WASM while BullMQ starts this process (the worker waits for that before taking jobs),
// not during its first job; then sign one small file of its own, so that the first job is as quick as the next.
c2paWasm();
await warmUpSigning().catch((err: unknown) => {
  createLogger(loadConfig().logLevel, 'sign-sandbox').warn({ err }, 'the signing warm-up failed: the first job starts cold');
});

// One set of connections per sandbox process, reused for every job it runs.
let deps: Promise<SignJobDeps> | undefined;

async function createDeps(): Promise<SignJobDeps> {
  const config = loadConfig();
  // The worker process migrated before it started taking jobs.
  const knex = connectDatabase(config);
  const events = new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: false });
  return signJobDeps({ config, knex, vault: createKeyVault(config), events, logger: createLogger(config.logLevel, 'sign-job') });
}

/** BullMQ sandboxed processor: runs in a child process of the worker process. */
export default async function signSandbox(job: SandboxedJob<{ jobId: string }>): Promise<void> {
  // A failed set-up is not kept: the next job tries again (e.g. after the database came back).
  deps ??= createDeps().catch((err: unknown) => {
    deps = undefined;
    throw err;
  });
  const attempts = job.opts.attempts ?? 1;
  const number = job.attemptsMade + 1;
  try {
    await processSignJob(await deps, job.data.jobId, { number, final: number >= attempts });
  } finally {
    await sendMetricsSnapshot();
    reportWasmMemory();
  }
}

/**
 * Tells the worker how much WASM memory this process now holds: it never shrinks, so after a large file the worker
 * ends this process once it is idle rather than let it keep gigabytes (sandbox-pool.ts). Sent before BullMQ's
 * own completion message, over the same ordered channel.
 */
function reportWasmMemory(): void {
  try {
    process.send?.({ cmd: WASM_MEMORY_MESSAGE, bytes: c2paWasmMemoryBytes() } satisfies WasmMemoryMessage);
  } catch {
    // The worker is gone; nothing to tell.
  }
}
