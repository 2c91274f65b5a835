import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApi } from './api.js';
import { nodeScriptArgs } from './node-script.js';
import { RUN_MARK } from './run-mark.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface RoleProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL to the process and everything it started (its group): none gets a chance to clean up. */
  kill(): Promise<void>;
  /** SIGKILL to the role's own process only, as the OOM killer does: what it started must notice and end itself. */
  killLeader(): Promise<void>;
}

/** Whether a process runs (a zombie, killed and not yet reaped, does not). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The running processes of process group `pgid` (zombies, killed and not yet reaped, not counted). */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** SIGKILL to a process group (a role and whatever it started); nothing when it is gone already. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // the group is gone
  }
}

/** The Procfile's command for `role` (e.g. `node dist/api/main.js`) as node's arguments, run from the repository. */
export function procfileArgs(role: string): string[] {
  const line = readFileSync(path.join(ROOT, 'Procfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${role}:`));
  const words = line?.slice(role.length + 1).trim().split(/\s+/) ?? [];
  if (words[0] !== 'node') throw new Error(`the Procfile has no \`${role}: node ...\` line`);
  return words.slice(1);
}

/**
 * Starts a process role (e.g. workers/main.ts) as its own OS process, compiled when dist/ is current (node-script.ts),
 * leader of its own process group, and waits for `readyLine` in its log. The wait is generous: on a loaded machine a worker's two sandbox processes alone took over
 * 30 s to load (16 s each). A role that is not ready in time, or exits first, is killed with its whole group (its
 * sandboxes, fronts or anything else it started) before the start fails, so no process outlives a failed start.
 */
export function startRole(script: string, env: Record<string, string>, readyLine: RegExp, timeoutMs = 90_000): Promise<RoleProcess> {
  return startNode(nodeScriptArgs(script), script, env, readyLine, timeoutMs);
}

/** startRole for a Procfile role as the Procfile runs it: compiled, from dist/ (`npm run build` first). */
export function startProcfileRole(role: string, env: Record<string, string>, readyLine: RegExp, timeoutMs = 90_000): Promise<RoleProcess> {
  return startNode(procfileArgs(role), `the ${role} role (Procfile)`, env, readyLine, timeoutMs);
}

async function startNode(args: string[], script: string, env: Record<string, string>, readyLine: RegExp, timeoutMs: number): Promise<RoleProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // The run's mark (test/support/leak-check.ts) goes to the child and to whatever it starts, so that none outlives the run unseen.
    env: { PATH: process.env.PATH ?? '', [RUN_MARK]: process.env[RUN_MARK] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script} not ready after ${timeoutMs} ms:\n${out}`)), timeoutMs);
      const check = () => {
        if (readyLine.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited (${code}) before it was ready:\n${out}`));
      });
    });
  } catch (err) {
    killGroup(child);
    await exited;
    throw err;
  }
  return {
    child,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      killGroup(child);
      await exited;
    },
    async killLeader() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The port of a role's operator listener (OPS_PORT 0: any free one), from its `operator listener ... ready` log line. */
export function opsPortOf(role: RoleProcess): number {
  const line = role.output().split('\n').find((l) => l.includes('"msg":"operator listener'));
  if (!line) throw new Error(`no operator listener in the log:\n${role.output()}`);
  return (JSON.parse(line) as { port: number }).port;
}

/**
 * A worker process (workers/main.ts) on a test API's database, Redis queue and file store, timestamping at
 * `tsaUrl`; `extra` adds or overrides variables. Resolves once it takes jobs (within `timeoutMs`).
 */
export function startTestWorker(api: Pick<TestApi, 'db' | 'config'>, tsaUrl: string, extra: Record<string, string> = {}, timeoutMs?: number): Promise<RoleProcess> {
  return startRole(
    'workers/main.ts',
    {
      NODE_ENV: 'test',
      DATABASE_URL: api.db.url,
      REDIS_URL: api.config.redisUrl,
      QUEUE_PREFIX: api.config.queuePrefix,
      DATA_DIR: api.config.dataDir,
      LOG_LEVEL: 'info',
      TSA_URL: tsaUrl,
      // Each process its own operator listener: several run at once in a test.
      OPS_PORT: '0',
      ...extra,
    },
    /sign worker started/,
    timeoutMs,
  );
}
