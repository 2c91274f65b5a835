/**
 * Temp files and directories named after the process that made them (`p<pid>-...`), so that a process starting up
 * can remove what a dead one left (a kill -9 mid-upload or mid-job) without touching what live processes on the same
 * host, sharing DATA_DIR, are still writing.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

const OWNED = /^p(\d+)-/;

/** `name` prefixed with this process's id. */
export function ownedTempName(name: string): string {
  return `p${process.pid}-${name}`;
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, another user's.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Entries in `dir` that are left over: made by a process that is gone, or older than `maxAgeMs` whatever their owner
 * (a pid can be reused; nothing here lives that long), or unnamed (from before owners were recorded) and older than
 * `unownedAgeMs`. Removes them and returns how many. Never throws.
 */
export async function sweepLeftovers(dir: string, options: { maxAgeMs?: number; unownedAgeMs?: number; match?: (name: string) => boolean } = {}): Promise<number> {
  const maxAgeMs = options.maxAgeMs ?? 24 * 3600_000;
  const unownedAgeMs = options.unownedAgeMs ?? 3600_000;
  let removed = 0;
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const name of entries) {
    if (options.match && !options.match(name)) continue;
    const full = path.join(dir, name);
    try {
      const owner = OWNED.exec(name);
      const age = Date.now() - (await stat(full)).mtimeMs;
      const stale = owner ? !isAlive(Number(owner[1])) || age > maxAgeMs : age > unownedAgeMs;
      if (!stale) continue;
      await rm(full, { recursive: true, force: true });
      removed += 1;
    } catch {
      // Gone already, or not ours to remove: the next start tries again.
    }
  }
  return removed;
}
