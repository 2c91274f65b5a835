/**
 * bcrypt off the event loop. bcryptjs is pure JavaScript: at cost 12 a hash or a comparison is about half a second of
 * CPU, which on the API's event loop stalled every request meanwhile (20 parallel sign-ins put /health at 9 s). Here
 * they run in a few worker threads (PASSWORD_THREADS), started on first use and ended after a minute idle.
 *
 * Checks running and waiting are capped for the whole process (PASSWORD_CHECKS_MAX): beyond it a sign-in, a
 * registration or a new user is refused at once with 503 auth_busy and Retry-After, so that many client addresses
 * together cannot queue unbounded work (each address is only limited by AUTH_RATE_LIMIT).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Config } from '../../shared/config.js';
import { ServiceError } from '../../shared/errors.js';
import { passwordCheckSeconds, passwordChecksRefused, reportPasswordPool } from '../../shared/metrics/metrics.js';

const IDLE_MS = 60_000;
const RETRY_AFTER_SECONDS = 2;

/**
 * The thread's code, evaluated as a script (no loader: it runs the same from the TypeScript sources and from a
 * build), with bcryptjs required by its resolved path.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', (task) => {
  try {
    const result = task.op === 'hash' ? bcrypt.hashSync(task.password, task.rounds) : bcrypt.compareSync(task.password, task.hash);
    parentPort.postMessage({ result });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;
const BCRYPTJS = createRequire(import.meta.url).resolve('bcryptjs');

type Task =
  | { op: 'hash'; password: string; rounds: number; done: Settle<string> }
  | { op: 'compare'; password: string; hash: string; done: Settle<boolean> };

interface Settle<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

interface Thread {
  worker: Worker;
  task: Task | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

/** Every check one thread answered: which thread and how long it took (metrics, and tests that look where it ran). */
export interface PasswordCheck {
  op: Task['op'];
  threadId: number;
  seconds: number;
}

export interface PasswordPoolOptions {
  threads: number;
  /** Checks running and waiting at most; beyond, auth_busy. */
  maxChecks: number;
  idleMs?: number;
  onCheck?: (check: PasswordCheck) => void;
}

export const passwordPoolOptions = (config: Pick<Config, 'passwordThreads' | 'passwordChecksMax'>): PasswordPoolOptions => ({
  threads: config.passwordThreads,
  maxChecks: config.passwordChecksMax,
});

export class PasswordPool {
  readonly #threads: Thread[] = [];
  readonly #waiting: Task[] = [];
  readonly #unreport: () => void;
  #closed = false;

  constructor(private readonly options: PasswordPoolOptions) {
    this.#unreport = reportPasswordPool(() => ({ running: this.#running(), waiting: this.#waiting.length }));
  }

  /** A bcrypt hash of `password` at cost `rounds`. */
  hash(password: string, rounds: number): Promise<string> {
    return new Promise((resolve, reject) => this.#submit({ op: 'hash', password, rounds, done: { resolve, reject } }));
  }

  /** Whether `password` matches `hash` (any bcrypt hash, of any cost). */
  compare(password: string, hash: string): Promise<boolean> {
    return new Promise((resolve, reject) => this.#submit({ op: 'compare', password, hash, done: { resolve, reject } }));
  }

  /** auth_busy now when a check would be refused, before the caller does anything it cannot undo. */
  assertRoom(): void {
    if (this.#inFlight() >= this.options.maxChecks) {
      passwordChecksRefused.inc();
      const { maxChecks } = this.options;
      throw new ServiceError('unavailable', 'auth_busy', `${maxChecks} password checks are running or waiting (PASSWORD_CHECKS_MAX); try again shortly`, { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
  }

  /** Ends every thread; checks running or waiting are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unreport();
    for (const task of this.#waiting.splice(0)) task.done.reject(new Error('password pool closed'));
    await Promise.all(this.#threads.splice(0).map((t) => this.#end(t, new Error('password pool closed'))));
  }

  #running = () => this.#threads.filter((t) => t.task).length;
  #inFlight = () => this.#running() + this.#waiting.length;

  #submit(task: Task): void {
    if (this.#closed) return task.done.reject(new Error('password pool closed'));
    this.assertRoom();
    this.#waiting.push(task);
    this.#dispatch();
  }

  #dispatch(): void {
    while (this.#waiting.length > 0) {
      let thread = this.#threads.find((t) => !t.task);
      if (!thread && this.#threads.length < this.options.threads) thread = this.#start();
      if (!thread) return;
      this.#run(thread, this.#waiting.shift()!);
    }
  }

  #start(): Thread {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { bcryptjs: BCRYPTJS } });
    // Idle threads never keep the process alive; the idle timer ends them.
    worker.unref();
    const thread: Thread = { worker, task: undefined, idleTimer: undefined };
    const fail = (err: unknown) => {
      const at = this.#threads.indexOf(thread);
      if (at >= 0) this.#threads.splice(at, 1);
      thread.task?.done.reject(err);
      thread.task = undefined;
      this.#dispatch();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`password thread exited (${code})`)));
    this.#threads.push(thread);
    return thread;
  }

  #run(thread: Thread, task: Task): void {
    clearTimeout(thread.idleTimer);
    thread.task = task;
    const started = performance.now();
    const { done, ...message } = task;
    thread.worker.ref();
    thread.worker.once('message', (answer: { result?: string | boolean; error?: string }) => {
      thread.task = undefined;
      thread.worker.unref();
      const seconds = (performance.now() - started) / 1000;
      passwordCheckSeconds.observe({ op: task.op }, seconds);
      this.options.onCheck?.({ op: task.op, threadId: thread.worker.threadId, seconds });
      if (answer.error !== undefined) done.reject(new Error(answer.error));
      else (done as Settle<string | boolean>).resolve(answer.result!);
      thread.idleTimer = setTimeout(() => void this.#retire(thread), this.options.idleMs ?? IDLE_MS).unref();
      this.#dispatch();
    });
    thread.worker.postMessage(message);
  }

  async #retire(thread: Thread): Promise<void> {
    if (thread.task) return;
    const at = this.#threads.indexOf(thread);
    if (at >= 0) this.#threads.splice(at, 1);
    await this.#end(thread, undefined);
  }

  async #end(thread: Thread, err: Error | undefined): Promise<void> {
    clearTimeout(thread.idleTimer);
    thread.worker.removeAllListeners('exit');
    if (thread.task && err) thread.task.done.reject(err);
    thread.task = undefined;
    await thread.worker.terminate();
  }
}
