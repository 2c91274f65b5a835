/**
 * Answers organisations' certificate requests (shared/pki/certificate-requests.ts): the scheduler holds the CA keys,
 * so it alone issues; and makes the keys and CSRs organisations ask for to send an external CA
 * (shared/pki/external-certificates.ts). Polls every `intervalMs` (a sign job or a rename waits on the answer, so this is short); a run
 * takes what is open and answers it before the next begins. Answered requests older than a week are dropped hourly.
 */
import type { Logger } from 'pino';
import type { PkiDeps } from '../shared/pki/pki-deps.js';
import { ANSWER_BATCH, answerCertificateRequests, pruneCertificateRequests } from '../shared/pki/certificate-requests.js';
import { answerExternalKeyRequests, KEY_REQUEST_BATCH } from '../shared/pki/external-certificates.js';

export const ISSUANCE_POLL_MS = 100;
const PRUNE_EVERY_MS = 3600_000;

export interface IssuanceJob {
  stop(): Promise<void>;
}

export function startIssuanceJob(deps: PkiDeps, logger: Logger, intervalMs = ISSUANCE_POLL_MS): IssuanceJob {
  let stopped = false;
  let lastPrune = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = async (): Promise<void> => {
    try {
      // Taking a full batch means more may be waiting: go on at once.
      while (!stopped && (await answerCertificateRequests({ ...deps, logger })) >= ANSWER_BATCH);
      // Keys and CSRs for external CAs: only this role may create vault keys.
      while (!stopped && (await answerExternalKeyRequests({ ...deps, logger })) >= KEY_REQUEST_BATCH);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await pruneCertificateRequests(deps.knex);
      }
    } catch (err) {
      logger.error({ err }, 'answering certificate requests failed; will retry');
    }
  };
  let running = run();
  const schedule = () => {
    timer = setTimeout(() => {
      running = run().then(() => {
        if (!stopped) schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  void running.then(() => {
    if (!stopped) schedule();
  });
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
