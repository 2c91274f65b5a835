import type { Knex } from 'knex';
import type passport from 'passport';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { JobEvents, SignQueue } from '../shared/queue/types.js';
import type { FileStore } from '../shared/storage/file-store.js';

/** What route modules need from the running process; built once in api/app.ts. */
export interface AppContext {
  config: Config;
  knex: Knex;
  logger: Logger;
  passport: passport.PassportStatic;
  /** Resolves when Redis answers a PING; used by /health. */
  pingRedis: () => Promise<boolean>;
  files: FileStore;
  signQueue: SignQueue;
  jobEvents: JobEvents;
}
