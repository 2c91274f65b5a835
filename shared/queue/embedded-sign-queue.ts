import type { SignJobRetryPolicy } from './bullmq-sign-queue.js';
import type { QueueCounts, SignProcessor, SignQueue } from './types.js';

/**
 * The queue used by `npm start` when no Redis answers: jobs run in this process, with the same retry
 * policy as BullMQ. Job state lives in the database, so the scheduler's reconciler re-runs what a previous process
 * left queued or half-done.
 */
export class EmbeddedSignQueue implements SignQueue {
  readonly kind = 'embedded';
  private readonly pending: { jobId: string; attempt: number }[] = [];
  private readonly queued = new Set<string>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  /** Jobs waiting for their retry delay. */
  private readonly waitingRetry = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly processor: SignProcessor,
    private readonly options: SignJobRetryPolicy & { concurrency: number },
  ) {}

  async enqueue(jobId: string): Promise<void> {
    this.push(jobId, 1);
  }

  async liveJobs(jobIds: readonly string[]): Promise<Set<string>> {
    return new Set(jobIds.filter((id) => this.queued.has(id) || this.waitingRetry.has(id)));
  }

  async requeue(jobId: string): Promise<void> {
    this.push(jobId, 1);
  }

  async counts(): Promise<QueueCounts> {
    return { waiting: this.pending.length, active: this.running.size, delayed: this.waitingRetry.size, failed: 0 };
  }

  private push(jobId: string, attempt: number): void {
    if (this.closed || this.queued.has(jobId)) return;
    this.queued.add(jobId);
    this.pending.push({ jobId, attempt });
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.options.concurrency && this.pending.length > 0) {
      const { jobId, attempt } = this.pending.shift()!;
      const final = attempt >= this.options.attempts;
      const run = this.processor(jobId, { number: attempt, final })
        .catch(() => {
          if (final || this.closed) return;
          const timer = setTimeout(() => {
            this.retryTimers.delete(timer);
            this.waitingRetry.delete(jobId);
            this.push(jobId, attempt + 1);
          }, this.options.backoffMs * 2 ** (attempt - 1));
          this.retryTimers.add(timer);
          this.waitingRetry.add(jobId);
        })
        .finally(() => {
          this.queued.delete(jobId);
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers) clearTimeout(timer);
    await Promise.allSettled([...this.running]);
  }
}
