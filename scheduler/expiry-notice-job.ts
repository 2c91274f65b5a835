/** Hourly (and at start): signing_certificate.expiring webhook events for certificates close to their end. */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { recordExpiryNotices } from '../shared/pki/expiry-notices.js';

const EVERY_MS = 3600_000;

export function startExpiryNoticeJob(knex: Knex, withinDays: number, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      try {
        const recorded = await recordExpiryNotices(knex, withinDays);
        if (recorded > 0) logger.info({ recorded }, 'signing certificates close to expiry: webhook events recorded');
      } catch (err) {
        logger.error({ err }, 'certificate expiry check failed; will retry at the next interval');
      }
    });
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
