import type { SandboxedJob } from 'bullmq';
import { loadConfig } from '../shared/config.js';
import { processSignJob, type SignJobDeps } from './sign-job.js';
import { createSignJobDeps } from './sign-job-deps.js';

// One set of connections per sandbox thread, reused for every job the thread runs.
let deps: Promise<SignJobDeps> | undefined;

/** BullMQ sandboxed processor: runs in a worker thread of the worker process. */
export default async function signSandbox(job: SandboxedJob<{ jobId: string }>): Promise<void> {
  deps ??= createSignJobDeps(loadConfig(), { listen: false });
  const attempts = job.opts.attempts ?? 1;
  const number = job.attemptsMade + 1;
  await processSignJob(await deps, job.data.jobId, { number, final: number >= attempts });
}
