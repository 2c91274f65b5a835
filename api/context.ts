import type { Knex } from 'knex';
import type passport from 'passport';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { PkiEvents } from '../shared/pki/pki-events.js';
import type { JobEvents, SignQueue } from '../shared/queue/types.js';
import type { KeyVault } from '../shared/vault/types.js';
import type { FileStore, ResumableStore, UploadStaging } from '../shared/storage/index.js';
import type { PasswordPool } from './auth/password-pool.js';
import type { RemoteManifests } from './media/remote-manifest.js';
import type { VerifyPool } from './media/verify-pool.js';

/** What route modules need from the running process; built once in api/app.ts. */
export interface AppContext {
  config: Config;
  knex: Knex;
  logger: Logger;
  passport: passport.PassportStatic;
  /** Resolves when Redis answers a PING; used by /health. */
  pingRedis: () => Promise<boolean>;
  files: FileStore;
  /** This process's own temp files for incoming uploads (checked before they reach `files`). */
  staging: UploadStaging;
  /** Resumable uploads' bytes until the last one arrives (DATA_DIR/resumable or Blob Storage). */
  resumable: ResumableStore;
  /** Processes that decode, fingerprint and read C2PA data off the event loop (media/verify-pool.ts). */
  verifyPool: VerifyPool;
  /** The same, for uploads' pixel checks alone: an upload never waits behind verifications. */
  uploadCheckPool: VerifyPool;
  /** Remote manifests fetched for verification, kept a while and fetched a few at a time (media/remote-manifest.ts). */
  remoteManifests: RemoteManifests;
  /** Worker threads that hash and compare passwords off the event loop (auth/password-pool.ts). */
  passwords: PasswordPool;
  signQueue: SignQueue;
  /** Readiness asks it for the signing key; the API itself never signs. */
  vault: KeyVault;
  jobEvents: JobEvents;
  /** Where revocations the web role records (a departing person's certificates) are announced to OCSP responders. */
  pkiEvents: PkiEvents;
}
