import { renderMetrics } from '../../shared/metrics/registry.js';

/** One sample of the Prometheus text format: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The metrics text of this process, and a reader of one series in it (0 when absent). */
export async function scrape(): Promise<{ body: string; value(name: string, labels?: Record<string, string>): number; has(name: string, labels?: Record<string, string>): boolean }> {
  const { body } = await renderMetrics();
  const samples = parseSamples(body);
  // A series is named by all its labels: `labels` must list them exactly (no partial match).
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.find(
      (s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  return { body, value: (name, labels) => find(name, labels)?.value ?? 0, has: (name, labels) => find(name, labels) !== undefined };
}

/** Runs `action` and returns how much each series grew meanwhile (counters are process-global: compare, never absolute). */
export async function growth(
  series: ReadonlyArray<readonly [string, Record<string, string>?]>,
  action: () => Promise<unknown>,
): Promise<number[]> {
  const before = await scrape();
  await action();
  const after = await scrape();
  return series.map(([name, labels]) => after.value(name, labels) - before.value(name, labels));
}
