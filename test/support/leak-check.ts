/**
 * A mocha root hook plugin (.mocharc.json `require`): the test run leaves no process and no temp directory behind.
 *
 * - Temp directories: the run gets a private TMPDIR, so whatever a test makes with os.tmpdir() lands there; whatever is
 *   still in it at the end is reported (and then removed). Other runs on the same machine use other directories.
 *   Under `mocha --parallel` every worker process has its own, and `afterAll` runs after each file: the check is
 *   then per file, and the directory itself is removed when the process exits.
 * - Processes: every child of this run is marked with MSS_TEST_RUN=<id> in its environment (inherited, and passed on by
 *   test/support/processes.ts), so one that outlived its test is found even after its parent died and it was
 *   re-parented; children of this process that do not carry the mark are found by walking the process tree.
 *   The esbuild service tsx starts is expected: it ends with mocha.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { RUN_MARK } from './run-mark.js';

const runId = `${process.pid}-${Date.now()}`;
process.env[RUN_MARK] = runId;
// A parallel worker inherits the main process's TMPDIR: its own directory goes beside that one, not inside it.
const SYSTEM_TMP = 'MSS_TEST_SYSTEM_TMPDIR';
const systemTmp = process.env[SYSTEM_TMP] ?? tmpdir();
process.env[SYSTEM_TMP] = systemTmp;
const runTmp = mkdtempSync(path.join(systemTmp, 'mss-test-run-'));
process.env.TMPDIR = runTmp;
process.on('exit', () => rmSync(runTmp, { recursive: true, force: true }));
// Child processes that inherit TMPDIR keep using the machine's tsx compile cache (a cold one costs seconds a start).
const TSX_CACHE = `tsx-${process.getuid?.() ?? 0}`;
mkdirSync(path.join(systemTmp, TSX_CACHE), { recursive: true, mode: 0o700 });
symlinkSync(path.join(systemTmp, TSX_CACHE), path.join(runTmp, TSX_CACHE));

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, state: fields[0]!, ppid: Number(fields[1]), cmdline };
  } catch {
    return undefined;
  }
}

function carriesMark(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${RUN_MARK}=${runId}`);
  } catch {
    return false;
  }
}

/** Whether `pid` runs the esbuild binary (tsx's transform service, a child of every tsx process). */
function isEsbuildService(pid: number, cmdline: string): boolean {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`)) === 'esbuild' || /\besbuild\b.*--service/.test(cmdline);
  } catch {
    return /\besbuild\b.*--service/.test(cmdline);
  }
}

/** Live processes started by this run (descendants, or carrying the run's mark), other than this one. */
export function leftoverProcesses(): Proc[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is Proc => p !== undefined && p.state !== 'Z');
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found = new Map<number, Proc>();
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.set(child.pid, child);
      walk(child.pid);
    }
  };
  walk(process.pid);
  for (const p of all) if (p.pid !== process.pid && carriesMark(p.pid)) found.set(p.pid, p);
  return [...found.values()].filter((p) => !(p.ppid === process.pid && isEsbuildService(p.pid, p.cmdline)));
}

export const mochaHooks = {
  async afterAll(this: { timeout(ms: number): void }) {
    this.timeout(30_000);
    // A process stopped by a test's last after hook may still be on its way out.
    let procs = leftoverProcesses();
    for (let i = 0; i < 50 && procs.length; i += 1) {
      await delay(100);
      procs = leftoverProcesses();
    }
    const dirs = readdirSync(runTmp).filter((name) => name !== TSX_CACHE);
    const problems = [
      ...procs.map((p) => `process ${p.pid} (parent ${p.ppid}) still running: ${p.cmdline.slice(0, 200)}`),
      ...dirs.map((d) => `left in the temp directory: ${d}`),
    ];
    // Clean up either way: a failed check must not leave the machine worse off.
    for (const p of procs) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    for (const d of dirs) rmSync(path.join(runTmp, d), { recursive: true, force: true });
    if (problems.length) throw new Error(`the test run left things behind:\n${problems.join('\n')}`);
  },
};
