import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { createRedis } from '../redis.js';
import { JOB_EVENTS_CHANNEL, type JobEvents } from './types.js';

function waitOn(emitter: EventEmitter, jobId: string, timeoutMs: number): { changed: Promise<void>; cancel(): void } {
  let cancel = () => undefined as void;
  const changed = new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      emitter.off(jobId, done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    emitter.on(jobId, done);
    cancel = done;
  });
  return { changed, cancel };
}

/** Single-process events: the embedded mode, where API and worker share one process. */
export class LocalJobEvents implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async publish(jobId: string): Promise<void> {
    this.emitter.emit(jobId);
  }
  waitForChange(jobId: string, timeoutMs: number) {
    return waitOn(this.emitter, jobId, timeoutMs);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** Events across processes over Redis pub/sub: one subscriber connection per process, fanned out locally. */
export class RedisJobEvents implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly publisher: Redis;
  private subscriber: Redis | undefined;

  /** `listen`: API processes subscribe at start, so no change is missed while a first wait is set up. */
  private readonly channel: string;

  constructor(redisUrl: string, prefix: string, options: { listen: boolean }) {
    this.channel = `${prefix}:${JOB_EVENTS_CHANNEL}`;
    this.publisher = createRedis(redisUrl);
    if (options.listen) {
      this.subscriber = createRedis(redisUrl);
      this.subscriber.on('message', (_channel: string, jobId: string) => this.emitter.emit(jobId));
      void this.subscriber.subscribe(this.channel);
    }
  }

  async publish(jobId: string): Promise<void> {
    await this.publisher.publish(this.channel, jobId);
  }

  waitForChange(jobId: string, timeoutMs: number) {
    if (!this.subscriber) throw new Error('RedisJobEvents was created without listen');
    return waitOn(this.emitter, jobId, timeoutMs);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
    this.publisher.disconnect();
    this.subscriber?.disconnect();
  }
}
