/**
 * The verification pool's supervisor (verify-pool.ts starts it, one per API process): a small process of its own that
 * starts the pool's members (verify-process.ts), hands each task the API sends to an idle one, relays the answer, and
 * ends members that took too long, died, grew past the recycling bound, or whose task the API cancelled (its client
 * went away). A member killed mid-task has its task answered once the process is gone, so the API frees the task's
 * slot (and its client's share of the pool) only when the work has really stopped. Members are forked here rather
 * than by the API because fork() copies the forking process's page tables, which stalls the event loop of a large
 * process (the API under `npm start` holds the embedded database) for as long as that takes, at every new member.
 *
 * The API never sends more tasks than the pool's size, so a task always finds an idle member or starts one.
 *
 * Protocol (IPC, advanced serialization): API -> supervisor: SupervisorTask, SupervisorCancel. Supervisor -> API:
 * `{ ready: true }` once, SupervisorAnswer per task, SupervisorMembers whenever the members change, SupervisorLog for
 * the API's log.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { childModule } from '../../shared/paths.js';
import type { TaskAnswer, TaskError, TaskMessage } from './verify-process.js';
import type { TaskInput, TaskKind } from './verify-tasks.js';

export interface SupervisorOptions {
  /** A member whose RSS is past this after a task is ended. */
  recycleBytes: number;
  /** A task running longer is ended, its member killed. */
  timeoutMs: number;
  /** An idle member is ended after this long. */
  idleMs: number;
  /** Members' CPU niceness (they yield to the API). */
  niceness: number;
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

const MEMBER = childModule(import.meta.url, 'verify-process');
const options = JSON.parse(process.argv[2] ?? '{}') as SupervisorOptions;

const send = (msg: SupervisorAnswer | SupervisorMembers | SupervisorLog | { ready: true }) => {
  try {
    process.send?.(msg);
  } catch {
    // The API is gone; 'disconnect' ends this process.
  }
};
const log = (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => send({ log: { level, message, fields } });

interface Member {
  child: ChildProcess;
  ready: Promise<boolean>;
  task: number | undefined;
  timer: NodeJS.Timeout | undefined;
  retired: boolean;
  /** Why it was killed mid-task: its task's answer once the process is gone. */
  killedFor: TaskFailure | undefined;
  exited: Promise<void>;
}

const members = new Set<Member>();
const idle: Member[] = [];

const announce = () => send({ members: [...members].map((m) => m.child.pid).filter((pid): pid is number => pid !== undefined) });

/** Answers the member's task, once. */
function answer(member: Member, outcome: Omit<SupervisorAnswer, 'id'>): void {
  const id = member.task;
  if (id === undefined) return;
  member.task = undefined;
  clearTimeout(member.timer);
  send({ id, ...outcome } as SupervisorAnswer);
}

function retire(member: Member, signal: NodeJS.Signals): void {
  member.retired = true;
  clearTimeout(member.timer);
  members.delete(member);
  const at = idle.indexOf(member);
  if (at >= 0) idle.splice(at, 1);
  member.child.kill(signal);
  announce();
}

/** Kills a member at work; its task is answered `failure` when the process has exited (see start). */
function kill(member: Member, failure: TaskFailure): void {
  member.killedFor ??= failure;
  retire(member, 'SIGKILL');
}

function start(): Member {
  const child = fork(MEMBER.modulePath, [], { execArgv: MEMBER.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    if (child.pid !== undefined) setPriority(child.pid, options.niceness);
  } catch {
    // Not permitted here: the member runs at the API's priority.
  }
  const member: Member = {
    child,
    task: undefined,
    timer: undefined,
    retired: false,
    killedFor: undefined,
    ready: new Promise((resolve) => {
      const onReady = (msg: unknown) => {
        if ((msg as { ready?: unknown } | null)?.ready !== true) return;
        child.off('message', onReady);
        resolve(true);
      };
      child.on('message', onReady);
      child.once('exit', () => resolve(false));
    }),
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  members.add(member);
  announce();
  child.on('message', (msg: TaskAnswer) => {
    // A member being killed answers nothing more: its task is answered when it has exited.
    if (typeof msg?.id === 'number' && msg.id === member.task && !member.retired) answered(member, msg);
  });
  child.once('exit', (code, signal) => {
    const wasRetired = member.retired;
    if (!wasRetired) retire(member, 'SIGKILL');
    answer(member, { failure: member.killedFor ?? { code: 'verification_failed', message: `the verification process ended (${signal ?? `exit ${code}`})` } });
    if (!wasRetired) log('warn', 'a verification process ended unexpectedly; the next task starts another', { pid: child.pid, code, signal });
  });
  child.once('error', (err) => log('warn', 'verification process error', { pid: child.pid, err: err.message }));
  return member;
}

function answered(member: Member, msg: TaskAnswer): void {
  if ('result' in msg) answer(member, { result: msg.result });
  else if (msg.error.name === 'C2paError' || msg.error.name === 'MediaRejectedError') answer(member, { error: msg.error });
  else {
    // A failure of our own (a WASM trap, a bug) may leave the process damaged: it is replaced.
    log('warn', 'a verification task failed; replacing its process', { pid: member.child.pid, error: msg.error });
    kill(member, { code: 'verification_failed', message: msg.error.message });
    return;
  }
  if (msg.rssBytes > options.recycleBytes) {
    log('info', 'ending a verification process that grew past VERIFY_RECYCLE_BYTES', { pid: member.child.pid, rssMiB: Math.round(msg.rssBytes / 2 ** 20), wasmMiB: Math.round(msg.wasmBytes / 2 ** 20) });
    retire(member, 'SIGTERM');
    return;
  }
  member.timer = setTimeout(() => retire(member, 'SIGTERM'), options.idleMs);
  idle.push(member);
}

async function run(task: SupervisorTask): Promise<void> {
  const member = idle.pop() ?? start();
  clearTimeout(member.timer);
  member.task = task.id;
  const ready = await member.ready;
  // Killed meanwhile (cancelled): answered as it exits.
  if (member.retired) return;
  if (!ready || member.task !== task.id) {
    answer(member, { failure: { code: 'verification_failed', message: 'the verification process could not start' } });
    return;
  }
  member.timer = setTimeout(() => {
    log('warn', 'ending a verification process that took too long', { pid: member.child.pid, task: task.kind });
    kill(member, { code: 'verification_timeout', message: `it took longer than ${options.timeoutMs / 1000} s` });
  }, options.timeoutMs);
  member.child.send({ id: task.id, kind: task.kind, input: task.input } satisfies TaskMessage, (err) => {
    if (err) kill(member, { code: 'verification_failed', message: 'the verification process could not be reached' });
  });
}

/** The task's client went away: its member (starting or at work) is killed as a stuck one is, and later replaced. */
function cancel(id: number): void {
  for (const member of members) if (member.task === id) kill(member, { code: 'verification_cancelled', message: 'its client went away' });
}

/** Ends every member and waits for them, then this process. */
async function shutdown(): Promise<void> {
  const exits = [...members].map((m) => m.exited);
  for (const member of [...members]) retire(member, 'SIGKILL');
  await Promise.all(exits);
  process.exit(0);
}

process.on('message', (msg: SupervisorTask | SupervisorCancel) => ('cancel' in msg ? cancel(msg.cancel) : void run(msg)));
// The API closed the pool (SIGTERM) or is gone (even by SIGKILL: its IPC channel closes).
process.once('SIGTERM', () => void shutdown());
process.once('disconnect', () => void shutdown());
send({ ready: true });
