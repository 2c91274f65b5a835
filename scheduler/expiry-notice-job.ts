/** Hourly (and at start): signing_certificate.expiring webhook events for certificates close to their end. */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { recordExpiryNotices } from '../shared/pki/expiry-notices.js';
import { startPeriodic, type PeriodicJob } from './periodic.js';

const EVERY_MS = 3600_000;

export function startExpiryNoticeJob(knex: Knex, withinDays: number, logger: Logger): PeriodicJob {
  return startPeriodic(
    async () => {
      const recorded = await recordExpiryNotices(knex, withinDays);
      if (recorded > 0) logger.info({ recorded }, 'signing certificates close to expiry: webhook events recorded');
    },
    EVERY_MS,
    logger,
    'certificate expiry check failed',
  );
}
