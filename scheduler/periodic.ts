/**
 * A scheduler job's loop: the task at start and every `intervalMs`, one run at a time (a run that is due while one is
 * in progress runs after it), failures logged and tried again at the next interval.
 */
import type { Logger } from 'pino';

export interface PeriodicJob {
  /** Settles after the start-up run (successful or not). */
  readonly started: Promise<void>;
  /** Runs once now (after any run in progress); failures are logged, not thrown. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startPeriodic(task: () => Promise<void>, intervalMs: number, logger: Logger, failure: string): PeriodicJob {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = (): Promise<void> => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await task();
      } catch (err) {
        logger.error({ err }, `${failure}; will retry at the next interval`);
      }
    });
    return running;
  };
  const started = run();
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return {
    started,
    runNow: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
