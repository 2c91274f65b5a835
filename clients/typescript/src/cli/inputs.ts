import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** A file to sign and where its signed copy goes, relative to the out directory. */
export interface Input {
  source: string;
  output: string;
  size: number;
}

/**
 * The files named, and every file under the folders named (hidden ones left out, and nothing under the out
 * directory itself). A file lands in the out directory under its name; a folder's files under their path inside it.
 */
export function collectInputs(args: readonly string[], outDir: string): Input[] {
  const out = path.resolve(outDir);
  const inputs: Input[] = [];
  const walk = (dir: string, base: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (full === out) continue;
      if (entry.isDirectory()) walk(full, base);
      else if (entry.isFile()) inputs.push({ source: full, output: path.relative(base, full), size: statSync(full).size });
    }
  };
  for (const arg of args) {
    const full = path.resolve(arg);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) throw new Error(`${arg}: no such file or folder`);
    if (stat.isDirectory()) walk(full, full);
    else inputs.push({ source: full, output: path.basename(full), size: stat.size });
  }
  const seen = new Map<string, string>();
  for (const input of inputs) {
    const other = seen.get(input.output);
    if (other !== undefined) throw new Error(`${other} and ${input.source} would both be written to ${input.output} in the out directory`);
    seen.set(input.output, input.source);
  }
  return inputs;
}
