/**
 * CRL generation (spec: weekly): on the CRL_SCHEDULE cron expression, plus once at start-up when a CRL is
 * missing or past half its life (a scheduler that was down must not let the CRLs run out).
 *
 * Several schedulers may run: each run takes the CRL's advisory lock (crl-publisher.ts) and skips issuing
 * when another scheduler issued one since this run's tick, so one CRL is issued per tick. A failed run (vault
 * or database down) is retried after retryMs with the same rule, until it succeeds or the next tick comes.
 */
import cron from 'node-cron';
import { refreshPublications, type PublishPolicy, type PublisherDeps } from '../shared/pki/crl-publisher.js';

export interface CrlJobOptions {
  /** Cron expression (config.crlSchedule). */
  schedule: string;
  /** Delay before retrying a failed run. Default 5 minutes. */
  retryMs?: number;
  timezone?: string;
}

export interface CrlJob {
  /** Settles when the start-up check has run once (successfully or not). */
  readonly started: Promise<void>;
  /** What each tick of the schedule runs; settles when done (a failure is logged and retried, not thrown). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/** The logging the job does (a pino Logger fits). */
export interface JobLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class CronScheduleError extends Error {
  constructor(schedule: string) {
    super(`configuration: CRL_SCHEDULE "${schedule}" is not a valid cron expression (e.g. "0 3 * * 1": Mondays 03:00)`);
    this.name = 'CronScheduleError';
  }
}

export function startCrlJob(deps: PublisherDeps, logger: JobLogger, options: CrlJobOptions): CrlJob {
  if (!cron.validate(options.schedule)) throw new CronScheduleError(options.schedule);
  const retryMs = options.retryMs ?? 5 * 60 * 1000;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const run = (policy: PublishPolicy, why: string): Promise<void> => {
    clearTimeout(retryTimer);
    running = running.then(async () => {
      if (stopped) return;
      try {
        const { crls, certificatesWritten } = await refreshPublications(deps, policy);
        for (const c of crls) {
          if (c.action === 'no_issuer') logger.warn({ crl: c.name }, 'no current CA to issue this CRL: run `npm run pki -- init`');
          else logger.info({ crl: c.name, action: c.action, crlNumber: c.crlNumber, nextUpdate: c.nextUpdate, why }, 'CRL checked');
        }
        if (certificatesWritten.length) logger.info({ files: certificatesWritten }, 'CA certificate files written');
      } catch (err) {
        if (stopped) return;
        logger.error({ err, why, retryInMs: retryMs }, 'CRL publication failed; will retry');
        retryTimer = setTimeout(() => void run(policy, `retry of ${why}`), retryMs);
        retryTimer.unref();
      }
    });
    return running;
  };

  const tick = () => run({ when: 'since', since: new Date() }, 'schedule');
  const task = cron.schedule(options.schedule, tick, { name: 'crl-publication', noOverlap: true, timezone: options.timezone });
  const started = run({ when: 'stale' }, 'start-up');

  return {
    started,
    tick,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      await task.destroy();
      await running;
    },
  };
}
