/**
 * The API process's one verification supervisor (verify-supervisor.ts), shared by its pools (verify-pool.ts), so the
 * API forks once and keeps one small process for both. Forked when a pool first needs it (its start() or first task);
 * each pool has a seat on it: its messages carry the pool's number and what comes back is routed to that pool. A pool
 * that closes has its members ended and leaves; the last one to leave ends the process. A supervisor that ended while
 * pools used it (crashed, killed) fails their tasks at work, and the next pool's task starts another. When every pool
 * on it is on demand (`npm start`), it is ended once none has anything at work, queued or alive, and the next task
 * starts another.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { childModule } from '../../shared/paths.js';
import type { FromSupervisor, PoolReport, PoolRequest, PoolSettings, ToSupervisor } from './verify-supervisor-protocol.js';

const SUPERVISOR = childModule(import.meta.url, 'verify-supervisor');

/** What the supervisor needs of a pool, and tells it. */
export interface SupervisedPool {
  readonly settings: PoolSettings;
  /** The supervisor may end while the pool is idle. */
  readonly onDemand: boolean;
  /** Nothing at work, queued, or alive (no members). */
  idle(): boolean;
  received(report: PoolReport): void;
  /** The supervisor ended while the pool used it: whatever the pool sent it has no answer. */
  ended(code: number | null, signal: NodeJS.Signals | null): void;
}

/** Sends the pool's request to the supervisor it connected to; `failed` when it cannot be delivered. */
export type SendToSupervisor = (request: PoolRequest, failed?: () => void) => void;

interface Supervisor {
  child: ChildProcess;
  ready: Promise<boolean>;
  exited: Promise<void>;
  /** Pools sent their settings (PoolOpen). */
  opened: Set<number>;
  /** Pools closing: resolved at their PoolClosed. */
  closing: Map<number, () => void>;
}

/** The pools using the supervisor, by number. */
const seated = new Map<number, SupervisedPool>();
let current: Supervisor | undefined;
let lastPool = 0;

function startSupervisor(): Supervisor {
  const child = fork(SUPERVISOR.modulePath, [], { execArgv: SUPERVISOR.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // An idle pool never keeps the API process alive; the supervisor and its members leave when the API does.
  child.unref();
  child.channel?.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<boolean>((resolve) => {
    child.once('message', (msg: { ready?: unknown }) => resolve(msg?.ready === true));
    void exited.then(() => resolve(false));
  });
  const supervisor: Supervisor = { child, ready, exited, opened: new Set(), closing: new Map() };
  child.on('message', (msg: FromSupervisor) => {
    if ('ready' in msg) return;
    if ('closed' in msg) supervisor.closing.get(msg.pool)?.();
    else seated.get(msg.pool)?.received(msg);
    // A pool's last member ended (idle): nothing may be left for the supervisor to do.
    if ('members' in msg) endIfIdle(supervisor);
  });
  child.once('exit', (code, signal) => {
    for (const done of supervisor.closing.values()) done();
    // One the last pool ended is no longer current, and no pool used it.
    if (current !== supervisor) return;
    current = undefined;
    for (const pool of seated.values()) pool.ended(code, signal);
  });
  child.once('error', (err) => {
    for (const pool of seated.values()) pool.received({ log: { level: 'warn', message: 'verification pool supervisor error', fields: { err } } });
  });
  return supervisor;
}

/** Ends the supervisor when every pool seated is on demand and idle; the exit is no news to them (not current). */
function endIfIdle(supervisor: Supervisor): void {
  if (current !== supervisor) return;
  for (const pool of seated.values()) if (!pool.onDemand || !pool.idle()) return;
  current = undefined;
  supervisor.child.kill('SIGTERM');
}

/** One pool's place on the supervisor, from its first connect() to its leave(). */
export class SupervisorSeat {
  readonly #number = (lastPool += 1);
  #left = false;

  constructor(private readonly pool: SupervisedPool) {}

  /**
   * The supervisor, started if none is running, ready and holding this pool's settings; undefined when it could not
   * start or the pool has left.
   */
  async connect(): Promise<SendToSupervisor | undefined> {
    if (this.#left) return undefined;
    seated.set(this.#number, this.pool);
    const supervisor = (current ??= startSupervisor());
    // Sent once it listens: the supervisor's `ready` comes after its message handler is in place.
    if (!(await supervisor.ready) || this.#left) return undefined;
    if (!supervisor.opened.has(this.#number)) {
      supervisor.opened.add(this.#number);
      this.#send(supervisor, { pool: this.#number, open: this.pool.settings });
    }
    return (request, failed) => this.#send(supervisor, { pool: this.#number, ...request }, failed);
  }

  /** Ends the pool's members (tasks at work have no answer), or the supervisor when no other pool uses it. */
  async leave(): Promise<void> {
    this.#left = true;
    if (!seated.delete(this.#number)) return;
    const supervisor = current;
    if (!supervisor) return;
    if (seated.size === 0) {
      // A pool seated from now on starts another.
      current = undefined;
      supervisor.child.kill('SIGTERM');
      await supervisor.exited;
      return;
    }
    if (!supervisor.opened.delete(this.#number)) return;
    await new Promise<void>((resolve) => {
      supervisor.closing.set(this.#number, resolve);
      this.#send(supervisor, { pool: this.#number, close: true }, resolve);
    });
    supervisor.closing.delete(this.#number);
  }

  #send(supervisor: Supervisor, msg: ToSupervisor, failed?: () => void): void {
    supervisor.child.send(msg, (err) => {
      if (err) failed?.();
    });
  }
}
