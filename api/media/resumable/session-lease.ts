/**
 * @tus/server's lock, held as a lease on the upload session's row, so that API processes on any host agree on who
 * writes an upload's bytes (its MemoryLocker only knows one process). A request takes the lease when it is free or
 * lapsed, renews it while it works and lets it go when done; one that finds it taken asks the holder to let go (a
 * PATCH whose client has gone but whose connection is not yet seen as closed) and tries again until LEASE_WAIT_MS.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import {
  acquireUploadSessionLease,
  releaseUploadSessionLease,
  renewUploadSessionLease,
  requestUploadSessionRelease,
} from '../../../shared/db/repositories/upload-sessions.js';

export interface LeaseTimes {
  /** How long a lease lasts unrenewed: a crashed process's lease lapses after this. */
  ttlMs: number;
  /** How long a request waits for a lease before it fails. */
  waitMs: number;
  /** How often a waiting request tries again. */
  retryMs: number;
}

const DEFAULT_TIMES: LeaseTimes = { ttlMs: 20_000, waitMs: 30_000, retryMs: 200 };

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

class SessionLease implements Lock {
  private readonly token = randomUUID();
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly id: string,
    private readonly times: LeaseTimes,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const deadline = Date.now() + this.times.waitMs;
    let asked = false;
    for (;;) {
      if (signal.aborted) throw ERRORS.ABORTED;
      const outcome = await acquireUploadSessionLease(this.id, this.token, this.times.ttlMs, this.knex);
      if (outcome === 'missing') throw ERRORS.FILE_NOT_FOUND;
      if (outcome === 'acquired') break;
      if (Date.now() > deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
      if (!asked) {
        await requestUploadSessionRelease(this.id, this.knex);
        asked = true;
      }
      await sleep(this.times.retryMs, signal);
    }
    this.keepAlive(requestRelease);
  }

  /** Renews the lease at a third of its life; when another request has asked for it, tells this one to finish. */
  private keepAlive(requestRelease: RequestRelease): void {
    let released = false;
    this.renewal = setInterval(() => {
      renewUploadSessionLease(this.id, this.token, this.times.ttlMs, this.knex).then(
        ({ held, releaseRequested }) => {
          if ((!held || releaseRequested) && !released) {
            released = true;
            void requestRelease();
          }
        },
        () => undefined, // the next renewal tries again; a lease that lapses meanwhile is what a crash looks like too
      );
    }, Math.max(50, Math.floor(this.times.ttlMs / 3)));
    this.renewal.unref();
  }

  async unlock(): Promise<void> {
    clearInterval(this.renewal);
    await releaseUploadSessionLease(this.id, this.token, this.knex);
  }
}

export class SessionLeaseLocker implements Locker {
  constructor(
    private readonly knex: Knex,
    private readonly times: LeaseTimes = DEFAULT_TIMES,
  ) {}

  newLock(id: string): Lock {
    return new SessionLease(this.knex, id, this.times);
  }
}
