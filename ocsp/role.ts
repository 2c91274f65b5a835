/**
 * The ocsp process role: the OCSP responder on OCSP_PORT, the CRL / CA-certificate host on CRL_PORT and the
 * RFC 3161 time-stamp authority on TSA_PORT (ocsp/tsa-service.ts), all fed from the database. Revocation
 * notices drop the responder's cached answer for that serial at once (and make the TSA reload its certificate);
 * a new CA (or a reconnected listener, which may have missed notices) rebuilds the responder from the database.
 * Started before `npm run pki -- init`, it answers `unauthorized` (RFC 6960: not authoritative for that CA)
 * until the first CA is issued, rather than exiting: deployment order does not matter. With OCSP_PROCESSES > 0 the
 * OCSP port is answered by that many front processes (ocsp/fronts.ts) asking this process's responder what they
 * cannot answer from their copies; revocations and reloads reach them too.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { registerCrlAgeCollector } from '../shared/pki/crl-age.js';
import { createPkiEvents, type PkiEvents, type PkiNotice } from '../shared/pki/pki-events.js';
import { readPublication } from '../shared/pki/publications.js';
import { readCertificate } from '../shared/pki/certificate.js';
import type { KeyVault } from '../shared/vault/types.js';
import { createCrlHost } from './crl-host.js';
import { databaseStatusLookup, loadOcspIssuers, type DatabaseIssuer } from './database-issuers.js';
import { errorAnswer } from './answers.js';
import { OcspResponder } from './responder.js';
import { databaseResponseStore } from './response-store.js';
import { listenServer } from './http-server.js';
import { createOcspServer, type OcspAnswerer } from './server.js';
import { startOcspFronts, type OcspFronts } from './fronts.js';
import { startTsaService, type TsaService } from './tsa-service.js';

export interface OcspRoleOptions {
  /** Default: createPkiEvents(config, knex) (Postgres LISTEN/NOTIFY, or the process's own emitter). */
  events?: PkiEvents;
  /** Interface to listen on. Default 0.0.0.0. */
  host?: string;
}

/**
 * A close function that also tells where it listens (ports matter when the configuration says 0), and
 * `reloads()`: settles when the responder reloads started so far are done.
 */
export type OcspRole = (() => Promise<void>) & { ocspPort: number; crlPort: number; tsaPort: number; reloads(): Promise<void> };

/** No responder yet: every answer is unauthorized, nothing is signed. */
const NO_NONCE_BUDGET = { rate: 0, tokens: 0, at: 0 };

/** Signed responses each front process keeps (the role's own cache keeps up to 100,000). */
const FRONT_CACHED_RESPONSES = 100_000;

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

export async function startOcspRole(
  config: Pick<Config, 'ocspPort' | 'crlPort' | 'ocspUnissuedStatus' | 'ocspProcesses' | 'databaseUrl' | 'tsaPort' | 'tsaPolicyOid' | 'logLevel'>,
  knex: Knex,
  vault: KeyVault,
  logger: Logger,
  options: OcspRoleOptions = {},
): Promise<OcspRole> {
  const ownEvents = options.events === undefined;
  const events = options.events ?? createPkiEvents(config, knex, logger);
  const lookupStatus = databaseStatusLookup(knex, config.ocspUnissuedStatus);
  // Pre-signed responses shared with the other responder copies on this database.
  const store = databaseResponseStore(knex);

  /** undefined while the database holds no usable CA (PKI not set up yet): then every request is unauthorized. */
  const buildResponder = async (): Promise<OcspResponder<DatabaseIssuer> | undefined> => {
    const issuers = await loadOcspIssuers(knex, vault, logger);
    if (issuers.length === 0) {
      logger.warn('no valid CA with a vault key to answer OCSP for (run `npm run pki -- init`); answering unauthorized until one is issued');
      return undefined;
    }
    responderSerials = new Set(issuers.flatMap((i) => (i.responder ? [readCertificate(i.responder.certificate).facts.serialHex] : [])));
    logger.info({ issuers: issuers.map((i) => i.subject), delegated: issuers.filter((i) => i.responder).map((i) => i.subject) }, 'OCSP responder answers for these CAs');
    return new OcspResponder({ issuers, lookupStatus, logger, store });
  };

  let responder: OcspResponder<DatabaseIssuer> | undefined;
  /** Serials of the delegated responder certificates the responder signs with. */
  let responderSerials = new Set<string>();
  let fronts: OcspFronts | undefined;
  // Builds run one at a time, in order; a failed reload keeps the current responder (and is logged).
  let reloading: Promise<void> = Promise.resolve();
  const reload = (why: string) => {
    reloading = reloading
      .catch(() => undefined)
      .then(async () => {
        try {
          responder = await buildResponder();
          fronts?.invalidate(); // as the new responder's cache starts empty (a reload may follow missed notices)
          logger.info({ why }, 'OCSP responder reloaded');
        } catch (err) {
          logger.error({ err, why }, 'OCSP responder reload failed; keeping the previous one');
          responder?.invalidate(); // never keep a possibly outdated "good" after missed notices
          fronts?.invalidate();
        }
      });
  };
  let tsa: TsaService | undefined;
  const onNotice = (notice: PkiNotice) => {
    tsa?.onNotice(notice);
    if (notice.kind === 'revoked') {
      responder?.invalidate(notice.serial);
      fronts?.invalidate(notice.serial);
      // A revoked delegated responder stops signing at once: the CA, or a newer responder, takes over.
      if (responderSerials.has(notice.serial)) reload(`OCSP responder ${notice.serial} revoked`);
    }
    else if (notice.kind === 'resync') reload('event listener reconnected');
    // A new CA, or a new delegated responder certificate (issued and rotated by the scheduler), changes who signs.
    else if (notice.role === 'root' || notice.role === 'sub_ca' || notice.role === 'ocsp') reload(`new ${notice.role} ${notice.serial}`);
  };
  // Subscribed before the first load and before listening: nothing issued or revoked meanwhile goes unheard.
  const unsubscribe = await events.subscribe(onNotice);
  const stopEvents = async () => {
    unsubscribe();
    if (ownEvents) await events.close();
  };
  // The first build is a failure of the start (e.g. the vault cannot be reached), not a logged reload.
  reloading = buildResponder().then((built) => {
    responder = built;
  });
  try {
    await reloading;
  } catch (err) {
    await stopEvents();
    throw err;
  }

  const answers: OcspAnswerer = {
    serve: async (der) => (responder ? responder.serve(der) : { answer: errorAnswer('unauthorized'), hit: false }),
  };
  // OCSP_PROCESSES > 0: front processes answer on the OCSP port, asking this process what they cannot answer.
  const ocspServer = config.ocspProcesses === 0 ? createOcspServer(answers, { logger }) : undefined;
  const crlHost = createCrlHost({ read: (name) => readPublication(knex, name) }, { logger });
  let ocspPort: number;
  let crlAddress: AddressInfo;
  try {
    if (ocspServer) ocspPort = (await listenServer(ocspServer, config.ocspPort, options.host)).port;
    else {
      fronts = await startOcspFronts({
        processes: config.ocspProcesses,
        port: config.ocspPort,
        host: options.host ?? '0.0.0.0',
        logLevel: config.logLevel,
        maxEntries: FRONT_CACHED_RESPONSES,
        answerer: answers,
        freshUntil: (answer) =>
          answer.responseStatus === 'successful' && responder
            ? Math.min(answer.thisUpdate.getTime() + responder.refreshAfterMs, answer.nextUpdate.getTime())
            : 0,
        nonceBudget: () => responder?.nonceBudget() ?? NO_NONCE_BUDGET,
        logger,
      });
      ocspPort = fronts.port;
    }
    crlAddress = await listenServer(crlHost, config.crlPort, options.host);
    tsa = await startTsaService(config, knex, vault, logger, { host: options.host });
  } catch (err) {
    await stopEvents();
    if (ocspServer?.listening) await closeServer(ocspServer);
    await fronts?.close();
    if (crlHost.listening) await closeServer(crlHost);
    throw err;
  }
  const tsaPort = tsa.port;
  logger.info({ ocspPort, ocspProcesses: config.ocspProcesses, crlPort: crlAddress.port, tsaPort, events: events.kind }, 'OCSP responder, CRL host and TSA listening');
  // mss_crl_age_seconds, read from the database at each scrape: this process hosts the CRLs.
  const unregisterCrlAge = registerCrlAgeCollector(knex);

  const close = async () => {
    unsubscribe();
    unregisterCrlAge();
    await Promise.all([ocspServer && closeServer(ocspServer), fronts?.close(), closeServer(crlHost), tsa?.close()]);
    await reloading.catch(() => undefined);
    await stopEvents();
  };
  return Object.assign(close, { ocspPort, crlPort: crlAddress.port, tsaPort, reloads: () => reloading.catch(() => undefined) });
}
