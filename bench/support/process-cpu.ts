import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** Every live process id (Linux /proc). */
export function processIds(): number[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number);
}

/**
 * A process's group and CPU milliseconds (user + system, all threads), its own and its waited-for children's,
 * from /proc/<pid>/stat; undefined when it has exited.
 */
export function processCpu(pid: number): { pgid: number; ownMs: number; childrenMs: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS;
  return { pgid: Number(f[2]), ownMs: ms(Number(f[11]) + Number(f[12])), childrenMs: ms(Number(f[13]) + Number(f[14])) };
}

/** CPU milliseconds used so far by each live process, keyed by pid. */
export type CpuSnapshot = Map<number, { role: string; ms: number }>;

/**
 * Every process's CPU time, named by `roleOf(command line)`; processes it gives no name are skipped.
 * Read at the start and end of a measured window, the difference shows where the machine's CPU went.
 */
export function cpuSnapshot(roleOf: (cmdline: string, pid: number) => string | undefined): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const pid of processIds()) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue; // exited meanwhile
    }
    const role = roleOf(cmdline, pid);
    const cpu = role ? processCpu(pid) : undefined;
    if (role && cpu) snapshot.set(pid, { role, ms: cpu.ownMs });
  }
  return snapshot;
}

/** CPU milliseconds per role between two snapshots (processes started in between count from zero). */
export function cpuByRole(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, { role, ms }] of after) byRole.set(role, (byRole.get(role) ?? 0) + ms - (before.get(pid)?.ms ?? 0));
  return byRole;
}
