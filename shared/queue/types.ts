/** Jobs in the queue by state, for metrics and operators. */
export type QueueCounts = Record<'waiting' | 'active' | 'delayed' | 'failed', number>;

/**
 * Hands sign jobs (already recorded in the database) to workers. Postgres is the source of truth: the queue can
 * lose entries (Redis flushed or restarted without persistence) and the reconciler puts them back.
 */
export interface SignQueue {
  readonly kind: 'bullmq' | 'embedded';
  /** Adds the job; adding a job the queue already holds is a no-op. */
  enqueue(jobId: string): Promise<void>;
  /** Of `jobIds`, those the queue holds as waiting, active, delayed or retrying (not finished, not lost). */
  liveJobs(jobIds: readonly string[]): Promise<Set<string>>;
  /** Adds the job again, replacing a finished (completed or failed) entry under the same id. */
  requeue(jobId: string): Promise<void>;
  counts(): Promise<QueueCounts>;
  close(): Promise<void>;
}

/**
 * Tells waiting API requests that a job's row changed, so `?wait=` sleeps on an event instead of
 * polling the database.
 */
export interface JobEvents {
  publish(jobId: string): Promise<void>;
  /** Resolves when `jobId` changes or after `timeoutMs`, whichever is first. */
  waitForChange(jobId: string, timeoutMs: number): { changed: Promise<void>; cancel(): void };
  close(): Promise<void>;
}

export const SIGN_QUEUE_NAME = 'sign';
/** Webhook deliveries (job id: the delivery's id). */
export const WEBHOOK_QUEUE_NAME = 'webhook';
/** Redis pub/sub channel (after the queue prefix) carrying the ids of jobs whose state changed. */
export const JOB_EVENTS_CHANNEL = 'sign-jobs:changed';

export interface SignAttempt {
  /** 1 for the first try. */
  number: number;
  /** No retry follows if this attempt fails: the processor records the failure. */
  final: boolean;
}

/** Does one sign job; throws to have it retried (or, on the final attempt, after recording the failure). */
export type SignProcessor = (jobId: string, attempt: SignAttempt) => Promise<void>;
