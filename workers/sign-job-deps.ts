import type { Config } from '../shared/config.js';
import { openDatabase } from '../shared/db/index.js';
import { createLogger } from '../shared/logger.js';
import { loadSigningIdentity } from '../shared/pki/authority.js';
import { RedisJobEvents } from '../shared/queue/job-events.js';
import type { JobEvents } from '../shared/queue/types.js';
import { FileStore } from '../shared/storage/file-store.js';
import { createKeyVault } from '../shared/vault/index.js';
import type { SignJobDeps } from './sign-job.js';

/** Everything a sign job needs, built from configuration (a BullMQ sandbox thread builds its own). */
export async function createSignJobDeps(config: Config, options: { listen: boolean; events?: JobEvents }): Promise<SignJobDeps> {
  const knex = await openDatabase(config);
  const vault = createKeyVault(config);
  return {
    knex,
    files: new FileStore(config.dataDir),
    events: options.events ?? new RedisJobEvents(config.redisUrl, config.queuePrefix, { listen: options.listen }),
    signingIdentity: () => loadSigningIdentity({ knex, vault, config }),
    logger: createLogger(config.logLevel, 'sign-job'),
  };
}
