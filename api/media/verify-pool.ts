/**
 * The API's verification pool: image headers and decoding, fingerprints and c2pa-rs reads run in up to
 * VERIFY_POOL_SIZE processes of their own (verify-process.ts), never on the API's event loop, which stays free to
 * answer (/health among others) however heavy the files. Processes rather than worker threads: a decoder that
 * crashes or runs out of memory takes one member down, not the API; a stuck one can be killed; and the memory a large
 * file took (c2pa-wasm's never shrinks, libvips' heap rarely does) goes back with the process.
 *
 * Bounded: a task waits for a free member, at most VERIFY_QUEUE_LIMIT waiting; beyond that 503 verification_busy
 * with Retry-After. A member that dies or errs mid-task is a 503 verification_failed and is replaced by the next task
 * that needs one; one that grew past VERIFY_RECYCLE_BYTES is ended after its task; one idle for a minute is ended.
 * Members run at a lower CPU priority than the API process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { C2paError } from '../../shared/c2pa/errors.js';
import type { Config } from '../../shared/config.js';
import { MediaRejectedError, type MediaRejection } from '../../shared/media/errors.js';
import { reportVerifyPool, verifyPoolRejections, verifyPoolSeconds, verifyPoolWaitSeconds } from '../../shared/metrics/metrics.js';
import { ApiError } from '../errors.js';
import type { TaskAnswer, TaskError, TaskMessage } from './verify-process.js';
import type { TaskInput, TaskKind, TaskResult } from './verify-tasks.js';

const MEMBER = fileURLToPath(new URL('./verify-process.ts', import.meta.url));

/** A 256 MiB MP4 reads in about 2 s, a 200 MP image decodes in a few: a task this long is stuck. */
export const VERIFY_TASK_TIMEOUT_MS = 180_000;
/** An idle member is ended after this long; the next task starts one (tsx, sharp, the 9 MB WASM: about a second of CPU). */
const IDLE_MS = 60_000;
/** Members yield the CPU to the API process (and its /health) when both want it. */
const MEMBER_NICENESS = 10;
const RETRY_AFTER_SECONDS = '5';

export interface VerifyPoolOptions {
  size: number;
  queueLimit: number;
  recycleBytes: number;
  timeoutMs?: number;
  logger?: Logger;
}

/** The pool's settings from the configuration. */
export function verifyPoolOptions(config: Pick<Config, 'verifyPoolSize' | 'verifyQueueLimit' | 'verifyRecycleBytes'>, logger?: Logger): VerifyPoolOptions {
  return { size: config.verifyPoolSize, queueLimit: config.verifyQueueLimit, recycleBytes: config.verifyRecycleBytes, logger };
}

interface Pending {
  id: number;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** One process of the pool, and the task it is doing. */
class Member {
  readonly ready: Promise<void>;
  pending: Pending | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  exited = false;
  /** Ended by the pool (idle, grown, timed out, closed), not on its own. */
  retired = false;

  constructor(readonly child: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (msg: unknown) => {
        if ((msg as { ready?: unknown } | null)?.ready !== true) return;
        child.off('message', onMessage);
        resolve();
      };
      child.on('message', onMessage);
      child.once('exit', (code, signal) => reject(failed(`the verification process could not start (${signal ?? `exit ${code}`})`)));
    });
    // Rejected only when the process never got ready; that is answered where it is awaited.
    this.ready.catch(() => undefined);
  }
}

function busy(): ApiError {
  verifyPoolRejections.inc({ reason: 'busy' });
  return new ApiError(503, 'verification_busy', 'the service is busy verifying other files; try again shortly', { 'Retry-After': RETRY_AFTER_SECONDS });
}

function failed(detail: string): ApiError {
  return new ApiError(503, 'verification_failed', `the file could not be verified now: ${detail}; try again shortly`, { 'Retry-After': RETRY_AFTER_SECONDS });
}

/** The file's own faults come back as the errors an in-process read throws; anything else is the member's. */
function fileError(error: TaskError): Error | undefined {
  if (error.name === 'C2paError') return new C2paError(error.message);
  if (error.name === 'MediaRejectedError') return new MediaRejectedError(error.reason as MediaRejection, error.message, error.mimeType);
  return undefined;
}

export class VerifyPool {
  readonly #options: Required<Omit<VerifyPoolOptions, 'logger'>> & { logger?: Logger };
  readonly #idle: Member[] = [];
  readonly #members = new Set<Member>();
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  #nextId = 0;
  #closed = false;
  readonly #unreport: () => void;

  constructor(options: VerifyPoolOptions) {
    this.#options = { timeoutMs: VERIFY_TASK_TIMEOUT_MS, ...options };
    this.#unreport = reportVerifyPool(() => this.state());
  }

  /** Tasks running, tasks waiting, processes alive. */
  state(): { busy: number; queued: number; processes: number } {
    return { busy: this.#running, queued: this.#waiting.length, processes: this.#members.size };
  }

  /** Process ids of the members alive (for tests and operators' logs). */
  pids(): number[] {
    return [...this.#members].map((m) => m.child.pid).filter((pid): pid is number => pid !== undefined);
  }

  /**
   * Runs a task in a member once one is free. Rejects with the file's own errors (C2paError, MediaRejectedError) as an
   * in-process call would, and with ApiError 503 verification_busy / verification_failed / verification_timeout.
   */
  async run<K extends TaskKind>(kind: K, input: TaskInput<K>): Promise<TaskResult<K>> {
    const queued = performance.now();
    const release = await this.#turn();
    const started = performance.now();
    verifyPoolWaitSeconds.observe({ task: kind }, (started - queued) / 1000);
    let outcome = 'failed';
    try {
      const result = (await this.#perform(kind, input)) as TaskResult<K>;
      outcome = 'ok';
      return result;
    } catch (err) {
      if (err instanceof C2paError || err instanceof MediaRejectedError) outcome = 'refused';
      else if (err instanceof ApiError && err.code === 'verification_timeout') outcome = 'timeout';
      if (outcome !== 'refused') verifyPoolRejections.inc({ reason: outcome });
      throw err;
    } finally {
      verifyPoolSeconds.observe({ task: kind, outcome }, (performance.now() - started) / 1000);
      release();
    }
  }

  /** Ends every member (their tasks fail with 503) and refuses new tasks. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unreport();
    const exits = [...this.#members].map((m) => (m.exited ? Promise.resolve() : new Promise<void>((resolve) => m.child.once('exit', () => resolve()))));
    for (const member of [...this.#members]) this.#retire(member, 'SIGKILL');
    await Promise.all(exits);
  }

  /** Waits for a slot; the function it returns gives the slot up (to the first waiter, who then holds it). */
  async #turn(): Promise<() => void> {
    if (this.#closed) throw busy();
    if (this.#running < this.#options.size) this.#running += 1;
    else if (this.#waiting.length >= this.#options.queueLimit) throw busy();
    // Handed over as it is freed, never re-counted: a task arriving meanwhile cannot slip in ahead.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return () => {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    };
  }

  async #perform(kind: TaskKind, input: TaskInput<TaskKind>): Promise<unknown> {
    const member = this.#idle.pop() ?? this.#start();
    clearTimeout(member.idleTimer);
    await member.ready;
    if (member.exited) throw failed('the verification process ended before its task');
    return new Promise((resolve, reject) => {
      const id = (this.#nextId += 1);
      const timer = setTimeout(() => {
        this.#options.logger?.warn({ pid: member.child.pid, task: kind }, 'ending a verification process that took too long');
        this.#settle(member, (p) => p.reject(new ApiError(503, 'verification_timeout', `the file could not be verified within ${this.#options.timeoutMs / 1000} s; try again later`)));
        this.#retire(member, 'SIGKILL');
      }, this.#options.timeoutMs);
      member.pending = {
        id,
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      member.child.send({ id, kind, input } satisfies TaskMessage as TaskMessage, (err) => {
        if (!err) return;
        this.#settle(member, (p) => p.reject(failed('the verification process could not be reached')));
        this.#retire(member, 'SIGKILL');
      });
    });
  }

  #start(): Member {
    // The API's own loader flags (tsx), so the member runs the same TypeScript.
    const child = fork(MEMBER, [], { execArgv: process.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const member = new Member(child);
    this.#members.add(member);
    try {
      if (child.pid !== undefined) setPriority(child.pid, MEMBER_NICENESS);
    } catch {
      // Not permitted here: the member runs at the API's priority.
    }
    // An idle pool never keeps the API process alive; a member leaves when its parent does (verify-process.ts).
    child.unref();
    child.channel?.unref();
    child.on('message', (msg: TaskAnswer) => {
      if (typeof msg?.id !== 'number' || member.pending?.id !== msg.id) return;
      this.#answered(member, msg);
    });
    child.once('exit', (code, signal) => {
      member.exited = true;
      this.#forget(member);
      this.#settle(member, (p) => p.reject(failed(`the verification process ended (${signal ?? `exit ${code}`})`)));
      if (!member.retired) this.#options.logger?.warn({ pid: child.pid, code, signal }, 'a verification process ended unexpectedly; the next task starts another');
    });
    child.once('error', (err) => this.#options.logger?.warn({ err, pid: child.pid }, 'verification process error'));
    return member;
  }

  #answered(member: Member, answer: TaskAnswer): void {
    if ('result' in answer) {
      this.#settle(member, (p) => p.resolve(answer.result));
    } else {
      const err = fileError(answer.error);
      // A failure of our own (a WASM trap, a bug) may leave the process's state damaged: it is replaced.
      if (!err) {
        this.#options.logger?.warn({ pid: member.child.pid, error: answer.error }, 'a verification task failed; replacing its process');
        this.#settle(member, (p) => p.reject(failed(answer.error.message)));
        this.#retire(member, 'SIGKILL');
        return;
      }
      this.#settle(member, (p) => p.reject(err));
    }
    if (answer.rssBytes > this.#options.recycleBytes || this.#closed) {
      this.#options.logger?.info({ pid: member.child.pid, rssMiB: Math.round(answer.rssBytes / 2 ** 20), wasmMiB: Math.round(answer.wasmBytes / 2 ** 20) }, 'ending a verification process that grew past VERIFY_RECYCLE_BYTES');
      this.#retire(member, 'SIGTERM');
      return;
    }
    member.idleTimer = setTimeout(() => this.#retire(member, 'SIGTERM'), IDLE_MS).unref();
    this.#idle.push(member);
  }

  /** Settles the member's task, once. */
  #settle(member: Member, how: (pending: Pending) => void): void {
    const pending = member.pending;
    member.pending = undefined;
    if (pending) how(pending);
  }

  #forget(member: Member): void {
    clearTimeout(member.idleTimer);
    this.#members.delete(member);
    const at = this.#idle.indexOf(member);
    if (at >= 0) this.#idle.splice(at, 1);
  }

  #retire(member: Member, signal: NodeJS.Signals): void {
    member.retired = true;
    this.#forget(member);
    if (!member.exited) member.child.kill(signal);
  }
}
