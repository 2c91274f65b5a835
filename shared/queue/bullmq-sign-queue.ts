import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SIGN_QUEUE_NAME, type QueueCounts, type SignQueue } from './types.js';

export interface SignJobRetryPolicy {
  attempts: number;
  backoffMs: number;
}

/** BullMQ waits for a connection before adding; an API request must not wait that long. */
const ENQUEUE_TIMEOUT_MS = 5000;

/**
 * Sign jobs on BullMQ (and, under another name, webhook deliveries); the BullMQ job id is the job's own id, so adding
 * twice never queues it twice.
 */
export class BullMqSignQueue implements SignQueue {
  readonly kind = 'bullmq';
  private readonly connection: Redis;
  /** The BullMQ queue itself, for the operators' queue view (Bull Board). */
  readonly queue: Queue;

  constructor(redisUrl: string, prefix: string, private readonly retry: SignJobRetryPolicy, private readonly name: string = SIGN_QUEUE_NAME) {
    // A producer should fail fast when Redis is down (the API answers 503) rather than queue commands offline.
    this.connection = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.connection.on('error', () => undefined);
    this.queue = new Queue(name, { connection: this.connection, prefix });
    this.queue.on('error', () => undefined); // surfaced to the caller by enqueue()
  }

  async enqueue(jobId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out adding the job to Redis')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.add(jobId), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async add(jobId: string): Promise<void> {
    await this.queue.add(
      this.name,
      { jobId },
      {
        jobId,
        attempts: this.retry.attempts,
        backoff: { type: 'exponential', delay: this.retry.backoffMs },
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
  }

  /** Job hashes still in a waiting, active, delayed or retry state: one pipelined round trip per call. */
  async liveJobs(jobIds: readonly string[]): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    const pipeline = this.connection.pipeline();
    // finishedOn is set when a job completes or fails for good; a missing hash means the entry was lost.
    for (const id of jobIds) pipeline.hmget(this.queue.toKey(id), 'timestamp', 'finishedOn');
    const replies = (await pipeline.exec()) ?? [];
    const live = new Set<string>();
    replies.forEach(([err, fields], i) => {
      if (err) throw err;
      const [created, finished] = fields as [string | null, string | null];
      if (created !== null && finished === null) live.add(jobIds[i]!);
    });
    return live;
  }

  async requeue(jobId: string): Promise<void> {
    const existing = await this.queue.getJob(jobId);
    if (existing?.finishedOn) await existing.remove();
    await this.enqueue(jobId);
  }

  async counts(): Promise<QueueCounts> {
    const c = await this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}
