import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeyVault } from '../vault/types.js';
import type { PkiEvents } from './pki-events.js';

/** What the certificate authority's operations (set-up, issuance, rotation, revocation) need. */
export interface PkiDeps {
  knex: Knex;
  vault: KeyVault;
  config: Pick<Config, 'dataDir' | 'crlUrl' | 'ocspUrl' | 'rootKeyName' | 'subCaKeyName' | 'leafKeyName' | 'tsaKeyName' | 'ocspKeyName' | 'pki'>;
  /** Where issuance and revocation are announced; required to revoke (OCSP responders must hear of it). */
  events?: PkiEvents;
  logger?: Pick<Logger, 'info' | 'warn'>;
}
