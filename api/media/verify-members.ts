/**
 * One pool's members, inside the verification supervisor (verify-supervisor.ts): starts them (verify-process.ts) with
 * the pool's settings, hands each task to an idle one, reports the answer, and ends members that took too long, died,
 * grew past the recycling bound, or whose task the API cancelled (its client went away). A member killed mid-task has
 * its task answered once the process is gone, so the API frees the task's slot (and its client's share of the pool)
 * only when the work has really stopped.
 *
 * The API never sends more tasks than the pool's size, so a task always finds an idle member or starts one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { childModule } from '../../shared/paths.js';
import type { TaskAnswer, TaskMessage } from './verify-process.js';
import type { PoolReport, PoolSettings, SupervisorAnswer, SupervisorLog, SupervisorTask, TaskFailure } from './verify-supervisor-protocol.js';

const MEMBER = childModule(import.meta.url, 'verify-process');

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

export class PoolMembers {
  readonly #members = new Set<Member>();
  readonly #idle: Member[] = [];

  /** `report`: to this pool's VerifyPool in the API. */
  constructor(
    private readonly settings: PoolSettings,
    private readonly report: (report: PoolReport) => void,
  ) {}

  async run(task: SupervisorTask): Promise<void> {
    const member = this.#idle.pop() ?? this.#start();
    clearTimeout(member.timer);
    member.task = task.id;
    const ready = await member.ready;
    // Killed meanwhile (cancelled): answered as it exits.
    if (member.retired) return;
    if (!ready || member.task !== task.id) {
      this.#answer(member, { failure: { code: 'verification_failed', message: 'the verification process could not start' } });
      return;
    }
    member.timer = setTimeout(() => {
      this.#log('warn', 'ending a verification process that took too long', { pid: member.child.pid, task: task.kind });
      this.#kill(member, { code: 'verification_timeout', message: `it took longer than ${this.settings.timeoutMs / 1000} s` });
    }, this.settings.timeoutMs);
    member.child.send({ id: task.id, kind: task.kind, input: task.input } satisfies TaskMessage, (err) => {
      if (err) this.#kill(member, { code: 'verification_failed', message: 'the verification process could not be reached' });
    });
  }

  /** The task's client went away: its member (starting or at work) is killed as a stuck one is, and later replaced. */
  cancel(id: number): void {
    for (const member of this.#members) if (member.task === id) this.#kill(member, { code: 'verification_cancelled', message: 'its client went away' });
  }

  /** Ends every member (their tasks answered verification_failed) and waits for them. */
  async close(): Promise<void> {
    const exits = [...this.#members].map((m) => m.exited);
    for (const member of [...this.#members]) this.#retire(member, 'SIGKILL');
    await Promise.all(exits);
  }

  #log(level: SupervisorLog['log']['level'], message: string, fields: Record<string, unknown>): void {
    this.report({ log: { level, message, fields } });
  }

  #announce(): void {
    this.report({ members: [...this.#members].map((m) => m.child.pid).filter((pid): pid is number => pid !== undefined) });
  }

  /** Answers the member's task, once. */
  #answer(member: Member, outcome: Omit<SupervisorAnswer, 'id'>): void {
    const id = member.task;
    if (id === undefined) return;
    member.task = undefined;
    clearTimeout(member.timer);
    this.report({ id, ...outcome } as SupervisorAnswer);
  }

  #retire(member: Member, signal: NodeJS.Signals): void {
    member.retired = true;
    clearTimeout(member.timer);
    this.#members.delete(member);
    const at = this.#idle.indexOf(member);
    if (at >= 0) this.#idle.splice(at, 1);
    member.child.kill(signal);
    this.#announce();
  }

  /** Kills a member at work; its task is answered `failure` when the process has exited (see #start). */
  #kill(member: Member, failure: TaskFailure): void {
    member.killedFor ??= failure;
    this.#retire(member, 'SIGKILL');
  }

  #start(): Member {
    const child = fork(MEMBER.modulePath, [], { execArgv: MEMBER.execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    try {
      if (child.pid !== undefined) setPriority(child.pid, this.settings.niceness);
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
    this.#members.add(member);
    this.#announce();
    child.on('message', (msg: TaskAnswer) => {
      // A member being killed answers nothing more: its task is answered when it has exited.
      if (typeof msg?.id === 'number' && msg.id === member.task && !member.retired) this.#answered(member, msg);
    });
    child.once('exit', (code, signal) => {
      const wasRetired = member.retired;
      if (!wasRetired) this.#retire(member, 'SIGKILL');
      this.#answer(member, { failure: member.killedFor ?? { code: 'verification_failed', message: `the verification process ended (${signal ?? `exit ${code}`})` } });
      if (!wasRetired) this.#log('warn', 'a verification process ended unexpectedly; the next task starts another', { pid: child.pid, code, signal });
    });
    child.once('error', (err) => this.#log('warn', 'verification process error', { pid: child.pid, err: err.message }));
    return member;
  }

  #answered(member: Member, msg: TaskAnswer): void {
    if ('result' in msg) this.#answer(member, { result: msg.result });
    else if (msg.error.name === 'C2paError' || msg.error.name === 'MediaRejectedError') this.#answer(member, { error: msg.error });
    else {
      // A failure of our own (a WASM trap, a bug) may leave the process damaged: it is replaced.
      this.#log('warn', 'a verification task failed; replacing its process', { pid: member.child.pid, error: msg.error });
      this.#kill(member, { code: 'verification_failed', message: msg.error.message });
      return;
    }
    if (msg.rssBytes > this.settings.recycleBytes) {
      this.#log('info', 'ending a verification process that grew past VERIFY_RECYCLE_BYTES', { pid: member.child.pid, rssMiB: Math.round(msg.rssBytes / 2 ** 20), wasmMiB: Math.round(msg.wasmBytes / 2 ** 20) });
      this.#retire(member, 'SIGTERM');
      return;
    }
    member.timer = setTimeout(() => this.#retire(member, 'SIGTERM'), this.settings.idleMs);
    this.#idle.push(member);
  }
}
