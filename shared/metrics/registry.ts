import { AggregatorRegistry, collectDefaultMetrics, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

/** Metrics as prom-client serialises them (getMetricsAsJSON), e.g. for a sandbox process to hand to its worker. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The process's one Prometheus registry. Every role registers its metrics here (shared/metrics/metrics.ts), and
 * the operator listener serves it, with the snapshots of child processes (sign sandboxes) added in.
 */
export const registry = new Registry();

let defaultsCollected = false;

/** Node process metrics (CPU, memory, event-loop lag, GC) for a role's own process; not for sandboxes. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry, prefix: 'mss_' });
}

const childSnapshots = new Map<string, MetricsSnapshot>();

/** The latest cumulative snapshot of a child process (keyed by a stable id); replaces its previous one. */
export function setChildSnapshot(id: string, snapshot: MetricsSnapshot): void {
  childSnapshots.set(id, snapshot);
}

/**
 * Folds the last snapshots of `ids` (children that exited) into one, so that their counts stay in the totals
 * (counters never go down) while memory stays bounded however often children are replaced.
 */
export async function retireChildSnapshots(ids: string[]): Promise<void> {
  const gone = ids.map((id) => childSnapshots.get(id)).filter((s): s is MetricsSnapshot => s !== undefined);
  if (gone.length === 0) return;
  const retired = childSnapshots.get('retired');
  const merged = await AggregatorRegistry.aggregate(retired ? [retired, ...gone] : gone).getMetricsAsJSON();
  for (const id of ids) childSnapshots.delete(id);
  childSnapshots.set('retired', merged as MetricsSnapshot);
}

/** Prometheus text of this process and its children: counters and histograms are summed across processes. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  if (childSnapshots.size === 0) return { contentType: registry.contentType, body: await registry.metrics() };
  const own = (await registry.getMetricsAsJSON()) as MetricsSnapshot;
  const merged = AggregatorRegistry.aggregate([own, ...childSnapshots.values()]);
  return { contentType: registry.contentType, body: await merged.metrics() };
}
