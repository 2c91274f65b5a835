/**
 * Sign jobs run in sandbox processes, but /metrics is served by their worker process. After every job a sandbox
 * sends its cumulative metrics over the IPC channel BullMQ opened (a message type BullMQ ignores); the worker keeps
 * the latest snapshot per sandbox and adds them into its /metrics (shared/metrics/registry.ts).
 */
import type { Child } from 'bullmq';
import { registry, retireChildSnapshots, setChildSnapshot, type MetricsSnapshot } from '../shared/metrics/registry.js';

const MESSAGE = 'mss:metrics';

interface MetricsMessage {
  cmd: typeof MESSAGE;
  snapshot: MetricsSnapshot;
}

function isMetricsMessage(msg: unknown): msg is MetricsMessage {
  return typeof msg === 'object' && msg !== null && (msg as { cmd?: unknown }).cmd === MESSAGE;
}

/** In a sandbox: hands the process's metrics to the worker. Never fails a job. */
export async function sendMetricsSnapshot(): Promise<void> {
  if (!process.send) return;
  try {
    const snapshot = (await registry.getMetricsAsJSON()) as MetricsSnapshot;
    process.send({ cmd: MESSAGE, snapshot } satisfies MetricsMessage);
  } catch {
    // A closed channel means the worker is gone; metrics are not worth an error.
  }
}

const watched = new WeakSet<Child>();

/** In the worker: collects the snapshots of `child` (once per child) and retires them when it exits. */
export function collectSandboxMetrics(child: Child): void {
  if (watched.has(child)) return;
  watched.add(child);
  const id = `sandbox-${child.pid}`;
  child.on('message', (msg: unknown) => {
    if (isMetricsMessage(msg)) setChildSnapshot(id, msg.snapshot);
  });
  child.on('exit', () => void retireChildSnapshots([id]));
}
