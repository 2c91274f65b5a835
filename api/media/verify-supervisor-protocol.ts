/**
 * The messages between the API process (verify-supervisor-link.ts, for its pools) and its one verification
 * supervisor (verify-supervisor.ts), over IPC with advanced serialization. Both pools share the supervisor, so every
 * message but `{ ready: true }` names its pool by the number the API gave it.
 *
 * API -> supervisor: PoolOpen once per pool (before its first task), then SupervisorTask and SupervisorCancel;
 * PoolClose when the pool closes while another still uses the supervisor (the last one ends the process instead).
 * Supervisor -> API: `{ ready: true }` once; then for each pool a SupervisorAnswer per task, SupervisorMembers whenever
 * its members change and SupervisorLog for its log, and PoolClosed once its members are gone after a PoolClose.
 */
import type { TaskError } from './verify-process.js';
import type { TaskInput, TaskKind } from './verify-tasks.js';

/** One pool's settings for its members, as they are today in each pool. */
export interface PoolSettings {
  /** A member whose RSS is past this after a task is ended. */
  recycleBytes: number;
  /** A task running longer is ended, its member killed. */
  timeoutMs: number;
  /** An idle member is ended after this long. */
  idleMs: number;
  /** Members' CPU niceness (they yield to the API). */
  niceness: number;
}

export interface PoolOpen {
  pool: number;
  open: PoolSettings;
}

/** Ends the pool's members; answered PoolClosed once they are gone. */
export interface PoolClose {
  pool: number;
  close: true;
}

export interface PoolClosed {
  pool: number;
  closed: true;
}

export interface SupervisorTask {
  id: number;
  kind: TaskKind;
  input: TaskInput<TaskKind>;
}

/** Stops a task: dropped if it has not reached a member, its member killed if it has. */
export interface SupervisorCancel {
  cancel: number;
}

/** Why a task has no answer: the code the API's error carries. */
export interface TaskFailure {
  code: 'verification_failed' | 'verification_timeout' | 'verification_cancelled';
  message: string;
}

/** The member's answer, or why there is none. */
export type SupervisorAnswer = { id: number } & ({ result: unknown } | { error: TaskError } | { failure: TaskFailure });
export interface SupervisorMembers {
  members: number[];
}
export interface SupervisorLog {
  log: { level: 'info' | 'warn'; message: string; fields: Record<string, unknown> };
}

/** A pool's work, as its VerifyPool sends it. */
export type PoolRequest = SupervisorTask | SupervisorCancel;
/** What the supervisor tells one pool. */
export type PoolReport = SupervisorAnswer | SupervisorMembers | SupervisorLog;

export type ToSupervisor = PoolOpen | PoolClose | ({ pool: number } & PoolRequest);
export type FromSupervisor = { ready: true } | PoolClosed | ({ pool: number } & PoolReport);
