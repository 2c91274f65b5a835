/**
 * The API's verification pool: image headers and decoding, fingerprints and c2pa-rs reads run in up to
 * VERIFY_POOL_SIZE processes of their own (verify-process.ts), never on the API's event loop, which stays free to
 * answer (/health among others) however heavy the files. Processes rather than worker threads: a decoder that
 * crashes or runs out of memory takes one member down, not the API; a stuck one can be killed; and the memory a large
 * file took (c2pa-wasm's never shrinks, libvips' heap rarely does) goes back with the process. A supervisor process
 * (verify-supervisor.ts, one for both pools: verify-supervisor-link.ts) starts and ends them, so the API forks once,
 * not for every new member.
 *
 * Bounded: a task waits for a free member, at most VERIFY_QUEUE_LIMIT waiting; beyond that 503 verification_busy
 * with Retry-After. A member that dies or errs mid-task is a 503 verification_failed and is replaced by the next task
 * that needs one; one that grew past VERIFY_RECYCLE_BYTES is ended after its task; one idle for a minute is ended.
 * Members run at a lower CPU priority than the API process.
 *
 * Cancellable: a task whose signal aborts (its client went away) leaves the queue, or has its member killed and
 * replaced, as a stuck one is. Its run() settles only once the member is gone, so whoever waits on it (the
 * per-address limit, api/rate-limit.ts) counts the work until it has really stopped.
 *
 * The API keeps two (api/app.ts): one for verification, and one for uploads' pixel checks, so that an organisation's
 * upload never waits behind anyone's verifications. They share the supervisor, each with members and settings of its
 * own.
 */
import type { Logger } from 'pino';
import { C2paError } from '../../shared/c2pa/errors.js';
import type { Config } from '../../shared/config.js';
import { MediaRejectedError, type MediaRejection } from '../../shared/media/errors.js';
import { reportVerifyPool, verifyPoolRejections, verifyPoolSeconds, verifyPoolWaitSeconds } from '../../shared/metrics/metrics.js';
import { ApiError } from '../errors.js';
import type { TaskError } from './verify-process.js';
import { SupervisorSeat } from './verify-supervisor-link.js';
import type { PoolReport, TaskFailure } from './verify-supervisor-protocol.js';
import type { TaskInput, TaskKind, TaskResult } from './verify-tasks.js';

/** A 256 MiB MP4 reads in about 2 s, a 200 MP image decodes in a few: a task this long is stuck. */
export const VERIFY_TASK_TIMEOUT_MS = 180_000;
/** An idle member is ended after this long; the next task starts one (tsx, sharp, the 9 MB WASM: about a second of CPU). */
const IDLE_MS = 60_000;
/** Members yield the CPU to the API process (and its /health) when both want it. */
const MEMBER_NICENESS = 10;
const RETRY_AFTER_SECONDS = 5;

/** verify: verification's (VERIFY_POOL_SIZE); uploads: uploads' pixel checks (UPLOAD_CHECK_POOL_SIZE). */
export type PoolName = 'verify' | 'uploads';

export interface VerifyPoolOptions {
  name: PoolName;
  size: number;
  queueLimit: number;
  recycleBytes: number;
  timeoutMs?: number;
  /** How long an idle member is kept (default a minute). */
  idleMs?: number;
  /**
   * The supervisor may end once every pool on it allows that and has nothing at work, queued or alive (`npm start`,
   * which forks it on demand too); the next task starts another.
   */
  onDemand?: boolean;
  logger?: Logger;
}

/** A pool's settings from the configuration: its own size; the queue limit and recycling bound are shared. */
export function verifyPoolOptions(
  config: Pick<Config, 'verifyPoolSize' | 'uploadCheckPoolSize' | 'verifyQueueLimit' | 'verifyRecycleBytes'>,
  name: PoolName,
  logger?: Logger,
): VerifyPoolOptions {
  const size = name === 'uploads' ? config.uploadCheckPoolSize : config.verifyPoolSize;
  return { name, size, queueLimit: config.verifyQueueLimit, recycleBytes: config.verifyRecycleBytes, logger: logger?.child({ pool: name }) };
}

function busy(): ApiError {
  verifyPoolRejections.inc({ reason: 'busy' });
  return new ApiError('unavailable', 'verification_busy', 'the service is busy verifying other files; try again shortly', { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

function unavailable(code: Exclude<TaskFailure['code'], 'verification_cancelled'>, detail: string): ApiError {
  return new ApiError('unavailable', code, `the file could not be verified: ${detail}; try again shortly`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

/** The task's client went away: nobody reads this, but the request's handler ends with it (logged at info). */
function cancelled(): ApiError {
  return new ApiError('unavailable', 'verification_cancelled', 'the client went away: its verification was stopped');
}

const failureError = (failure: TaskFailure) => (failure.code === 'verification_cancelled' ? cancelled() : unavailable(failure.code, failure.message));

/** The metrics' outcome of a task the pool did not complete. */
function outcomeOf(err: unknown): 'timeout' | 'cancelled' | 'failed' {
  if (err instanceof ApiError && err.code === 'verification_timeout') return 'timeout';
  if (err instanceof ApiError && err.code === 'verification_cancelled') return 'cancelled';
  return 'failed';
}

/** The file's own faults come back as the errors an in-process read throws. */
function fileError(error: TaskError): Error {
  if (error.name === 'C2paError') return new C2paError(error.message);
  return new MediaRejectedError(error.reason as MediaRejection, error.message, error.mimeType);
}

export class VerifyPool {
  readonly #options: VerifyPoolOptions & { timeoutMs: number };
  readonly #waiting: (() => void)[] = [];
  readonly #pending = new Map<number, { resolve(result: unknown): void; reject(err: unknown): void }>();
  readonly #seat: SupervisorSeat;
  #members: number[] = [];
  #running = 0;
  #nextId = 0;
  #closed = false;
  readonly #unreport: () => void;

  constructor(options: VerifyPoolOptions) {
    this.#options = { timeoutMs: VERIFY_TASK_TIMEOUT_MS, ...options };
    this.#unreport = reportVerifyPool(options.name, () => this.state());
    this.#seat = new SupervisorSeat({
      settings: { recycleBytes: this.#options.recycleBytes, timeoutMs: this.#options.timeoutMs, idleMs: options.idleMs ?? IDLE_MS, niceness: MEMBER_NICENESS },
      onDemand: options.onDemand === true,
      idle: () => this.#running === 0 && this.#waiting.length === 0 && this.#pending.size === 0 && this.#members.length === 0,
      received: (report) => this.#received(report),
      ended: (code, signal) => this.#ended(code, signal),
    });
  }

  /** Tasks running, tasks waiting, member processes alive. */
  state(): { busy: number; queued: number; processes: number } {
    return { busy: this.#running, queued: this.#waiting.length, processes: this.#members.length };
  }

  /** Process ids of the members alive, as the supervisor last reported them. */
  pids(): number[] {
    return [...this.#members];
  }

  /** Starts the supervisor now rather than with the first task (startApi: before traffic, not in its middle). */
  async start(): Promise<void> {
    await this.#seat.connect();
  }

  /**
   * Runs a task in a member once one is free. Rejects with the file's own errors (C2paError, MediaRejectedError) as an
   * in-process call would, and with ApiError 503 verification_busy / verification_failed / verification_timeout.
   * When `signal` aborts, the task is dropped from the queue or its member killed, and this rejects with
   * verification_cancelled once the member is gone.
   */
  async run<K extends TaskKind>(kind: K, input: TaskInput<K>, signal?: AbortSignal): Promise<TaskResult<K>> {
    const queued = performance.now();
    const release = await this.#turn(signal);
    const started = performance.now();
    verifyPoolWaitSeconds.observe({ task: kind }, (started - queued) / 1000);
    let outcome = 'failed';
    try {
      const answer = await this.#perform(kind, input, signal);
      if ('refused' in answer) {
        outcome = 'refused';
        throw answer.refused;
      }
      outcome = 'ok';
      return answer.result as TaskResult<K>;
    } catch (err) {
      if (outcome === 'failed') outcome = outcomeOf(err);
      if (outcome !== 'refused') verifyPoolRejections.inc({ reason: outcome });
      throw err;
    } finally {
      verifyPoolSeconds.observe({ task: kind, outcome }, (performance.now() - started) / 1000);
      release();
    }
  }

  /**
   * Ends every member (tasks still running fail with 503), and the supervisor if no other pool uses it, and refuses new
   * tasks.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unreport();
    await this.#seat.leave();
    this.#members = [];
    this.#failPending();
  }

  /**
   * Waits for a slot; the function it returns gives the slot up (to the first waiter, who then holds it). A waiter
   * whose signal aborts leaves the queue.
   */
  async #turn(signal: AbortSignal | undefined): Promise<() => void> {
    if (this.#closed) throw busy();
    if (signal?.aborted) throw this.#dropped();
    if (this.#running < this.#options.size) this.#running += 1;
    else if (this.#waiting.length >= this.#options.queueLimit) throw busy();
    // Handed over as it is freed, never re-counted: a task arriving meanwhile cannot slip in ahead.
    else {
      await new Promise<void>((resolve, reject) => {
        const drop = () => {
          this.#waiting.splice(this.#waiting.indexOf(handOver), 1);
          reject(this.#dropped());
        };
        const handOver = () => {
          signal?.removeEventListener('abort', drop);
          resolve();
        };
        signal?.addEventListener('abort', drop, { once: true });
        this.#waiting.push(handOver);
      });
    }
    return () => {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    };
  }

  /** A task dropped from the queue (or before it got there): its client went away. */
  #dropped(): ApiError {
    verifyPoolRejections.inc({ reason: 'cancelled' });
    return cancelled();
  }

  /**
   * The task's result, or the file's own fault (a refusal, not a failure of the pool); rejects when the pool fails.
   * `signal` aborting asks the supervisor to kill the task's member; the answer (verification_cancelled) comes once it
   * is gone.
   */
  async #perform(kind: TaskKind, input: TaskInput<TaskKind>, signal: AbortSignal | undefined): Promise<{ result: unknown } | { refused: Error }> {
    const send = await this.#seat.connect();
    if (!send) throw unavailable('verification_failed', 'the verification processes could not start');
    if (signal?.aborted) throw cancelled();
    const id = (this.#nextId += 1);
    const stop = () => send({ cancel: id });
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return await new Promise((resolve, reject) => {
        this.#pending.set(id, { resolve, reject });
        send({ id, kind, input }, () => this.#settle(id, (p) => p.reject(unavailable('verification_failed', 'the verification processes could not be reached'))));
      });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  #settle(id: number, how: (pending: { resolve(result: unknown): void; reject(err: unknown): void }) => void): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (pending) how(pending);
  }

  /** Tasks sent to a supervisor that ended, or to this pool's members as it closed: none will be answered. */
  #failPending(): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, (p) => p.reject(unavailable('verification_failed', 'the verification processes ended')));
  }

  #ended(code: number | null, signal: NodeJS.Signals | null): void {
    this.#members = [];
    this.#failPending();
    this.#options.logger?.warn({ code, signal }, 'the verification pool supervisor ended; the next task starts another');
  }

  #received(msg: PoolReport): void {
    if ('members' in msg) this.#members = msg.members;
    else if ('log' in msg) this.#options.logger?.[msg.log.level](msg.log.fields, msg.log.message);
    else if ('result' in msg) this.#settle(msg.id, (p) => p.resolve({ result: msg.result }));
    else if ('error' in msg) this.#settle(msg.id, (p) => p.resolve({ refused: fileError(msg.error) }));
    else if ('failure' in msg) this.#settle(msg.id, (p) => p.reject(failureError(msg.failure)));
  }
}
