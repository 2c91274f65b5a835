import { once } from 'node:events';
import type { Server } from 'node:http';
import type { Config } from '../shared/config.js';
import type { Knex } from '../shared/db/index.js';
import type { Logger } from '../shared/logger.js';
import type { JobEvents, SignQueue } from '../shared/queue/types.js';
import { createRedis, pingWithin } from '../shared/redis.js';
import type { FileStore } from '../shared/storage/index.js';
import { sweepLeftovers } from '../shared/storage/temp-owner.js';
import { UploadStaging } from '../shared/storage/staging.js';
import { createApp } from './app.js';
import { PasswordPool, passwordPoolOptions } from './auth/password-pool.js';
import { answerProtocolErrors } from './protocol-errors.js';
import { VerifyPool, verifyPoolOptions } from './media/verify-pool.js';
import type { KeyVault } from '../shared/vault/types.js';

export interface RunningApi {
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts the web role on config.port. The queue and job events are chosen by the caller. `verifySupervisor`: when the
 * verification pools' supervisor is forked: at start (default: before traffic, as forking a large process stalls its
 * event loop), or at the first verification or upload check, and ended again once the pools are idle with no members
 * (`npm start`: its one process would otherwise keep an idle supervisor for a service that may not verify again).
 */
export async function startApi(
  config: Config,
  deps: { knex: Knex; logger: Logger; signQueue: SignQueue; jobEvents: JobEvents; files: FileStore; vault: KeyVault },
  options: { verifySupervisor?: 'at-start' | 'on-demand' } = {},
): Promise<RunningApi> {
  // Uploads a killed API process (this host's, before this start) was staging when it died.
  const swept = await sweepLeftovers(new UploadStaging(config.dataDir).dir);
  if (swept > 0) deps.logger.info({ removed: swept }, 'removed uploads left staged by processes that are gone');
  const redis = createRedis(config.redisUrl, { lazyConnect: true });
  redis.connect().catch(() => undefined);
  const onDemand = options.verifySupervisor === 'on-demand';
  const verifyPool = new VerifyPool({ ...verifyPoolOptions(config, 'verify', deps.logger), onDemand });
  const uploadCheckPool = new VerifyPool({ ...verifyPoolOptions(config, 'uploads', deps.logger), onDemand });
  if (!onDemand) await Promise.all([verifyPool.start(), uploadCheckPool.start()]);
  const passwords = new PasswordPool(passwordPoolOptions(config));
  const app = createApp({ config, ...deps, verifyPool, uploadCheckPool, passwords, pingRedis: () => pingWithin(redis) });
  const server = app.listen(config.port);
  answerProtocolErrors(server, deps.logger);
  await once(server, 'listening');
  // Longer than the longest ?wait= hold, shorter than typical proxy idle timeouts.
  server.requestTimeout = 60_000;
  deps.logger.info({ port: config.port, baseUrl: config.baseUrl, queue: deps.signQueue.kind }, 'API listening');
  return {
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([verifyPool.close(), uploadCheckPool.close(), passwords.close()]);
      redis.disconnect();
    },
  };
}
