import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU milliseconds (user + system, all threads) used so far by each live process, keyed by pid (Linux /proc). */
export type CpuSnapshot = Map<number, { role: string; ms: number }>;

/**
 * Every process's CPU time, named by `roleOf(command line)`; processes it gives no name are skipped.
 * Read at the start and end of a measured window, the difference shows where the machine's CPU went.
 */
export function cpuSnapshot(roleOf: (cmdline: string, pid: number) => string | undefined): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const role = roleOf(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '), Number(entry));
      if (!role) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
      snapshot.set(Number(entry), { role, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS });
    } catch {
      // exited meanwhile
    }
  }
  return snapshot;
}

/** CPU milliseconds per role between two snapshots (processes started in between count from zero). */
export function cpuByRole(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, { role, ms }] of after) byRole.set(role, (byRole.get(role) ?? 0) + ms - (before.get(pid)?.ms ?? 0));
  return byRole;
}
