/**
 * The worker's pool of sandbox processes (BullMQ's child pool): filled before the first job, and recycled when a
 * sandbox's WASM memory grew with a large file.
 *
 * Sandboxes that signed a large file are ended once idle. WebAssembly memory never shrinks: c2pa-wasm holds a file
 * several times over while it signs (a 200 MiB WAV took 1.2 GiB of WASM memory before WAV was signed streamed; MP4,
 * MOV, M4A, WAV, MP3 and FLAC are signed streamed now and stay small; AVI and large images do not), and a process that
 * once signed a large file would keep that for good. A sandbox past `wasmBytes` after its job stays in the pool
 * while jobs keep coming (warm memory pays: a fresh process signed its first 200 MiB WAV in about 7.5 s, a warm one in
 * 1.3 s) and is ended once it has been idle for `idleMs` (0: at once). Images stay below the default 512 MiB. The pool
 * forks a fresh sandbox when a job needs one (about a second of CPU).
 */
import type { Child, ChildPool, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { collectSandboxMetrics } from './sandbox-metrics.js';

/** The message a sandbox sends after every job with the size of its WASM memory (sign-sandbox.ts). */
export const WASM_MEMORY_MESSAGE = 'mss:wasm-memory';
export interface WasmMemoryMessage {
  cmd: typeof WASM_MEMORY_MESSAGE;
  bytes: number;
}

/** When a sandbox that grew large is ended (WORKER_RECYCLE_WASM_BYTES, WORKER_RECYCLE_IDLE_MS). */
export interface SandboxRecycling {
  wasmBytes: number;
  idleMs: number;
}

/**
 * Forks and initialises `count` sandbox processes and puts them in BullMQ's pool as free children, before the
 * worker takes its first job. BullMQ forks a child only when a job needs one, so a new worker would otherwise
 * start a child (tsx, the modules, the 9 MB C2PA WASM: about a second of CPU each) in the middle of its first
 * burst of jobs, taking that CPU from the children already signing. The pool is private in BullMQ's types but
 * has been the same since v4; if it is ever missing, children are forked on demand as before.
 */
export async function startSandboxes(worker: Worker, sandboxFile: string, count: number, recycling: SandboxRecycling, logger: Logger): Promise<void> {
  const pool = (worker as unknown as { childPool?: Pick<ChildPool, 'retain' | 'release' | 'kill'> }).childPool;
  if (!pool) {
    logger.warn('BullMQ has no child pool to fill: sandbox processes start with the first jobs (and report no metrics)');
    return;
  }
  const wasmBytes = new WeakMap<Child, number>();
  const idleTimers = new Map<Child, NodeJS.Timeout>();
  const end = (child: Child) => {
    logger.info({ pid: child.pid, wasmMiB: Math.round((wasmBytes.get(child) ?? 0) / 2 ** 20) }, 'ending a sandbox process whose WASM memory grew with a large file');
    pool.kill(child, 'SIGTERM').catch((err: unknown) => logger.warn({ err, pid: child.pid }, 'could not end a sandbox process'));
  };
  // Every child the pool hands out, including replacements of crashed ones, reports its metrics to this process.
  const retain = pool.retain.bind(pool);
  pool.retain = async (processFile: string) => {
    const child = await retain(processFile);
    // Busy again: not idle.
    clearTimeout(idleTimers.get(child));
    idleTimers.delete(child);
    collectSandboxMetrics(child);
    watchWasmMemory(child, wasmBytes);
    return child;
  };
  // BullMQ releases a child right after its job (the child's WASM report arrived before its result).
  const release = pool.release.bind(pool);
  pool.release = (child: Child) => {
    if ((wasmBytes.get(child) ?? 0) <= recycling.wasmBytes) return release(child);
    if (recycling.idleMs === 0) return end(child);
    release(child);
    // Still free when the timer fires (a retain would have cleared it): ended, which also takes it out of the pool,
    // in the same turn of the event loop, so no job can be handed to it in between.
    idleTimers.set(
      child,
      setTimeout(() => {
        idleTimers.delete(child);
        end(child);
      }, recycling.idleMs).unref(),
    );
  };
  const children = await Promise.all(Array.from({ length: count }, () => pool.retain(sandboxFile)));
  for (const child of children) pool.release(child);
}

const watchedWasm = new WeakSet<Child>();

function watchWasmMemory(child: Child, wasmBytes: WeakMap<Child, number>): void {
  if (watchedWasm.has(child)) return;
  watchedWasm.add(child);
  child.on('message', (msg: unknown) => {
    const m = msg as Partial<WasmMemoryMessage> | null;
    if (m?.cmd === WASM_MEMORY_MESSAGE && typeof m.bytes === 'number') wasmBytes.set(child, m.bytes);
  });
}

