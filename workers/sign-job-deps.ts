import type { Knex } from 'knex';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { loadSigningIdentity } from '../shared/pki/authority.js';
import type { JobEvents } from '../shared/queue/types.js';
import { FileStore } from '../shared/storage/file-store.js';
import type { KeyVault } from '../shared/vault/types.js';
import type { SignJobDeps } from './sign-job.js';

/** Everything a sign job needs, from the process's own database, vault and event connections. */
export function signJobDeps(parts: { config: Config; knex: Knex; vault: KeyVault; events: JobEvents; logger: Logger }): SignJobDeps {
  const { config, knex, vault, events, logger } = parts;
  return {
    knex,
    files: new FileStore(config.dataDir),
    events,
    signingIdentity: () => loadSigningIdentity({ knex, vault, config }),
    logger,
  };
}
