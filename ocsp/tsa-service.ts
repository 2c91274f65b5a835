/**
 * The service's own time-stamp authority inside the trust-services (ocsp) process, on TSA_PORT: the TSA
 * certificate and key come from the database and the vault (shared/tsa/identity.ts loadTsaIdentity), cached,
 * and reloaded when PkiEvents announce a revocation or a new TSA / CA certificate.
 *
 * Like the OCSP responder, it starts even before `npm run pki -- init` (answering systemFailure rejections
 * until a TSA certificate exists), so deployment order does not matter.
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { readCertificate } from '../shared/pki/certificate.js';
import type { PkiNotice } from '../shared/pki/pki-events.js';
import { cachedTsaIdentity, TimeStampAuthority } from '../shared/tsa/authority.js';
import { loadTsaIdentity } from '../shared/tsa/identity.js';
import type { KeyVault } from '../shared/vault/types.js';
import { listenServer } from './http-server.js';
import { createTsaServer } from './tsa-server.js';

export interface TsaService {
  port: number;
  server: Server;
  authority: TimeStampAuthority;
  /** Feed every PkiEvents notice here: revocations and new certificates reload the TSA identity. */
  onNotice(notice: PkiNotice): void;
  close(): Promise<void>;
}

export async function startTsaService(
  config: Pick<Config, 'tsaPort' | 'tsaPolicyOid'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
  options: { host?: string; identityMaxAgeMs?: number } = {},
): Promise<TsaService> {
  const identity = cachedTsaIdentity(() => loadTsaIdentity({ knex, vault }), { maxAgeMs: options.identityMaxAgeMs });
  const authority = new TimeStampAuthority({ identity: identity.get, policy: config.tsaPolicyOid, logger });
  // Loaded once up front so a missing certificate is logged at start-up, not at the first request.
  await identity.get().then(
    (id) => {
      const { subject, fingerprintSha256 } = readCertificate(id.chainDer[0]!).facts;
      logger.info({ certificateRole: 'tsa', serial: id.serial, subject, fingerprintSha256, notAfter: id.notAfter, policy: config.tsaPolicyOid }, 'TSA signs with this certificate');
    },
    (err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'TSA has no usable certificate yet; answering rejections until one is issued'),
  );
  const server = createTsaServer(authority, { logger });
  const address = await listenServer(server, config.tsaPort, options.host);
  return {
    port: address.port,
    server,
    authority,
    onNotice(notice) {
      // Any revocation may be the TSA certificate or its sub-CA; a reload is one query.
      if (notice.kind === 'revoked' || notice.kind === 'resync' || notice.role === 'tsa' || notice.role === 'sub_ca' || notice.role === 'root') {
        identity.invalidate();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
