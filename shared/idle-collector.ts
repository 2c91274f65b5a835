import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** How often the event loop's use is looked at. */
const CHECK_EVERY_MS = 5_000;
/**
 * Below this share of a period spent working, the process counts as idle for that period. Not near zero: `npm start`
 * at rest still polls (webhook relay, anchoring) on its embedded database, whose queries run on this thread.
 */
const IDLE_BELOW = 0.25;

/**
 * Decides when to collect: once, in the first idle period after a period of work. V8 collects when a process
 * allocates, so one gone idle after a burst (uploads, decoded images, signed files) would keep that burst's garbage
 * in its RSS until the next one; an idle process that did nothing since has nothing to collect.
 */
export class IdleCollector {
  #workedSinceCollecting = false;

  /** Given the share of the last period the event loop spent working: whether to collect now. */
  period(utilization: number): boolean {
    if (utilization >= IDLE_BELOW) {
      this.#workedSinceCollecting = true;
      return false;
    }
    if (!this.#workedSinceCollecting) return false;
    this.#workedSinceCollecting = false;
    return true;
  }
}

/**
 * Collects this process's garbage when it goes idle after work (IdleCollector), where node exposes `gc`
 * (`--expose-gc`: `npm start`'s command, whose one process holds every role's); elsewhere nothing. The timer never
 * keeps the process alive.
 */
export function collectGarbageWhenIdle(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return;
  const collector = new IdleCollector();
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    if (!collector.period(utilization)) return;
    gc();
    // The collection's own time is not work: the next period starts after it.
    last = performance.eventLoopUtilization();
  }, CHECK_EVERY_MS).unref();
}
