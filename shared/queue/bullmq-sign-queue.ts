import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SIGN_QUEUE_NAME, type SignQueue } from './types.js';

export interface SignJobRetryPolicy {
  attempts: number;
  backoffMs: number;
}

/** BullMQ waits for a connection before adding; an API request must not wait that long. */
const ENQUEUE_TIMEOUT_MS = 5000;

/** Sign jobs on BullMQ; the BullMQ job id is the job's own id, so adding twice never queues it twice. */
export class BullMqSignQueue implements SignQueue {
  readonly kind = 'bullmq';
  private readonly connection: Redis;
  private readonly queue: Queue;

  constructor(redisUrl: string, prefix: string, private readonly retry: SignJobRetryPolicy) {
    // A producer should fail fast when Redis is down (the API answers 503) rather than queue commands offline.
    this.connection = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    this.connection.on('error', () => undefined);
    this.queue = new Queue(SIGN_QUEUE_NAME, { connection: this.connection, prefix });
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
      'sign',
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

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}
