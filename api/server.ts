import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Config } from '../shared/config.js';
import type { Knex } from '../shared/db/index.js';
import type { Logger } from '../shared/logger.js';
import { createRedis, pingWithin } from '../shared/redis.js';
import { createApp } from './app.js';

export interface RunningApi {
  server: Server;
  close(): Promise<void>;
}

/** Starts the web role on config.port with an already opened database. */
export async function startApi(config: Config, knex: Knex, logger: Logger): Promise<RunningApi> {
  const redis = createRedis(config.redisUrl, { lazyConnect: true });
  redis.on('error', (err) => logger.debug({ err: err.message }, 'redis connection error'));
  redis.connect().catch(() => undefined);
  const app = createApp({ config, knex, logger, pingRedis: () => pingWithin(redis) });
  const server = app.listen(config.port);
  await once(server, 'listening');
  logger.info({ port: config.port, baseUrl: config.baseUrl }, 'API listening');
  return {
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
