/**
 * The outbox relay: hands deliveries recorded in Postgres to the webhook queue (each once: its queue entry's id is
 * the delivery's id), and puts back pending deliveries the queue lost (Redis flushed, or a queue entry given up
 * after its worker died too often), like the sign queue's reconciler. Runs every WEBHOOK_RELAY_INTERVAL_MS in each
 * process that delivers; on Postgres one relay works at a time (an advisory lock, tried, never awaited).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { deliveriesToEnqueue, enqueuedPendingDeliveries, markDeliveriesEnqueued } from '../db/repositories/webhooks.js';
import type { SignQueue } from '../queue/types.js';

/** Advisory lock key: "WHK". */
const LOCK = [0x57484b, 1] as const;
const PAGE = 500;

export interface RelayDeps {
  knex: Knex;
  queue: SignQueue;
  /** Take the advisory lock (Postgres); false on the embedded PGlite (one process). */
  useLock: boolean;
}

export interface RelayResult {
  ran: boolean;
  enqueued: number;
  requeued: number;
}

async function withRelayLock(knex: Knex, useLock: boolean, fn: () => Promise<Omit<RelayResult, 'ran'>>): Promise<RelayResult> {
  if (!useLock) return { ran: true, ...(await fn()) };
  // The lock lives on a connection of its own; the work commits through the pool as it goes.
  const trx = await knex.transaction();
  try {
    const lock = (await trx.raw('SELECT pg_try_advisory_xact_lock(?::int, ?::int) AS locked', [...LOCK])) as { rows: Array<{ locked: boolean }> };
    if (!lock.rows[0]?.locked) return { ran: false, enqueued: 0, requeued: 0 };
    return { ran: true, ...(await fn()) };
  } finally {
    await trx.commit().catch(() => undefined);
  }
}

/** One relay run; `checkLost` also walks the deliveries already handed over and puts back those the queue lost. */
export function relayWebhookDeliveries(deps: RelayDeps, checkLost: boolean): Promise<RelayResult> {
  return withRelayLock(deps.knex, deps.useLock, async () => {
    let enqueued = 0;
    for (;;) {
      const ids = await deliveriesToEnqueue(PAGE, deps.knex);
      // requeue: a redelivered event's finished entry (same id) is replaced rather than taken for a live one.
      for (const id of ids) await deps.queue.requeue(id);
      await markDeliveriesEnqueued(ids, deps.knex);
      enqueued += ids.length;
      if (ids.length < PAGE) break;
    }
    let requeued = 0;
    if (checkLost) {
      let after: string | undefined;
      for (;;) {
        const ids = await enqueuedPendingDeliveries(after, PAGE, deps.knex);
        if (ids.length === 0) break;
        const live = await deps.queue.liveJobs(ids);
        for (const id of ids) {
          if (live.has(id)) continue;
          await deps.queue.requeue(id);
          requeued += 1;
        }
        after = ids[ids.length - 1];
        if (ids.length < PAGE) break;
      }
    }
    return { enqueued, requeued };
  });
}

export interface WebhookRelay {
  stop(): Promise<void>;
}

/** Runs the relay every `intervalMs`, checking for lost entries every `lostCheckMs`. */
export function startWebhookRelay(deps: RelayDeps, logger: Logger, intervalMs: number, lostCheckMs: number): WebhookRelay {
  let stopped = false;
  let lastLostCheck = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    const checkLost = Date.now() - lastLostCheck >= lostCheckMs;
    try {
      const result = await relayWebhookDeliveries(deps, checkLost);
      if (checkLost && result.ran) lastLostCheck = Date.now();
      if (result.requeued > 0) logger.warn({ requeued: result.requeued }, 'webhook deliveries missing from the queue were enqueued again');
    } catch (err) {
      logger.error({ err }, 'webhook relay failed; will retry');
    }
  };
  let running = run();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().then(schedule);
    }, intervalMs);
    timer.unref();
  };
  void running.then(schedule);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
