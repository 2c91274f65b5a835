import { Redis } from 'ioredis';

/**
 * A Redis connection for BullMQ and caches. maxRetriesPerRequest must be null for BullMQ's blocking
 * commands; reconnects back off up to 2 s so a restarted Redis is picked up again quickly.
 */
export function createRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    lazyConnect: options.lazyConnect ?? false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Connection errors are retried by ioredis; callers that care (health, queue) see them as failed commands.
  redis.on('error', () => undefined);
  return redis;
}

/** True when a Redis server answers at `url` within `timeoutMs`; used to choose BullMQ or the embedded queue. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** PING with a deadline, for health checks on an existing connection. */
export async function pingWithin(redis: Redis, timeoutMs = 1000): Promise<boolean> {
  // Down and waiting to retry (no Redis at all, with `npm start`'s in-process queue): a PING would only wait out the
  // deadline, and every /health with it.
  if (redis.status === 'reconnecting' || redis.status === 'close' || redis.status === 'end') return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then((r) => r === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
