/** The two bounds the responder puts on vault work: a token bucket and a concurrency limit with a queue. */

/** A token bucket's state at one moment, to rebuild it elsewhere (`RateLimit.resumed`). */
export interface RateSnapshot {
  /** Tokens per second (0: never a token). */
  rate: number;
  tokens: number;
  /** When it held `tokens` (epoch milliseconds). */
  at: number;
}

/** Token bucket: `take()` is true at most `rate` times per second on average, with bursts up to `rate`. */
export class RateLimit {
  private tokens: number;
  private last: number;

  constructor(private readonly rate: number, private readonly now: () => number) {
    this.tokens = rate;
    this.last = now();
  }

  /** A bucket continuing from `snapshot` (another process's, on the same clock). */
  static resumed(snapshot: RateSnapshot, now: () => number): RateLimit {
    const bucket = new RateLimit(snapshot.rate, now);
    bucket.tokens = snapshot.tokens;
    bucket.last = snapshot.at;
    return bucket;
  }

  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  snapshot(): RateSnapshot {
    this.refill();
    return { rate: this.rate, tokens: this.tokens, at: this.last };
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.rate, this.tokens + (Math.max(0, t - this.last) / 1000) * this.rate);
    this.last = t;
  }
}

/** Runs at most `maxActive` tasks at once with at most `maxQueued` waiting; `run` returns undefined when full. */
export class Limiter {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly maxActive: number, private readonly maxQueued: number) {}

  run<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.active < this.maxActive) return this.start(task);
    if (this.queue.length >= this.maxQueued) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => void this.start(task).then(resolve, reject));
    });
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}
