import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A sign job run in a fresh process, as a sign sandbox runs one, for the benches that measure its peak memory: the
 * child reports on one JSON line, the parent reads it.
 */

/** What the child reports: how it went, how long it took, and its peak RSS before and after the job. */
export interface SignReport {
  outcome: string;
  seconds: number;
  /** The same job run again in the same process, as a sandbox's later jobs run (where the bench asks for it). */
  laterSeconds?: number;
  /** VmHWM after start-up and loading the WASM, before the job. */
  baseMiB: number;
  peakMiB: number;
}

/** The process's peak resident memory so far (VmHWM), in MiB. */
export const vmHwmMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

/** Runs `script child <arg>` in a fresh Node process and returns the report it printed. */
export function runSignChild(script: string, arg: string): Promise<SignReport> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script, 'child', arg], { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (!line) return reject(new Error(`the sign job on ${arg} said nothing: ${err?.message ?? ''} ${stderr}`));
      resolve(JSON.parse(line) as SignReport);
    });
  });
}
