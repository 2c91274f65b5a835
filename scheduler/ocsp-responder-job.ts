/**
 * Keeps a delegated OCSP responder certificate in force (shared/pki/ocsp-responder.ts): at start and every
 * `intervalMs` (every 10 minutes by default: cheap, and a PKI set up after the scheduler started gets its responder
 * soon), issuing the next one before the current expires. The scheduler holds the CA keys,
 * so it alone issues. Before the PKI is set up (no sub-CA) it waits for the next run.
 */
import type { Logger } from 'pino';
import { ServiceError } from '../shared/errors.js';
import { ensureOcspResponder } from '../shared/pki/ocsp-responder.js';
import type { PkiDeps } from '../shared/pki/pki-deps.js';
import { startPeriodic, type PeriodicJob } from './periodic.js';

export const OCSP_RESPONDER_CHECK_MS = 600_000;

export function startOcspResponderJob(deps: PkiDeps, logger: Logger, intervalMs = OCSP_RESPONDER_CHECK_MS): PeriodicJob {
  return startPeriodic(
    async () => {
      try {
        await ensureOcspResponder({ ...deps, logger });
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'not_initialised') {
          logger.info('no sub-CA yet: the OCSP responder certificate is issued once the PKI is set up');
          return;
        }
        throw err;
      }
    },
    intervalMs,
    logger,
    'keeping the OCSP responder certificate in force failed',
  );
}
