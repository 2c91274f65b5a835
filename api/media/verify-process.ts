/**
 * A member of the API's verification pool (verify-pool.ts): a process of its own that performs one task at a time
 * (verify-tasks.ts) and reports with every answer how much memory it holds. c2pa-wasm's memory only grows (reading a
 * 256 MiB MP4 takes about 0.5 GiB of it) and decoding a large image leaves the heap large, so the pool replaces a
 * member that grew past VERIFY_RECYCLE_BYTES: the memory goes back to the system with the process, never to the API.
 *
 * Protocol (IPC, advanced serialization): the process sends `{ ready: true }` once loaded; then for each TaskMessage
 * the parent sends, one TaskAnswer.
 */
// First: a member whose API process died leaves, even one still loading the modules below.
import '../../shared/orphan-guard.js';
import sharp from 'sharp';
import { c2paWasm, c2paWasmMemoryBytes } from '../../shared/c2pa/wasm.js';
import { MediaRejectedError } from '../../shared/media/errors.js';
import { performTask, type TaskInput, type TaskKind } from './verify-tasks.js';

export interface TaskMessage {
  id: number;
  kind: TaskKind;
  input: TaskInput<TaskKind>;
}

/** What went wrong, as the parent rebuilds it: C2paError and MediaRejectedError are about the file; anything else is ours. */
export interface TaskError {
  name: string;
  message: string;
  reason?: string;
  mimeType?: string;
}

export type TaskAnswer = { id: number; rssBytes: number; wasmBytes: number } & ({ result: unknown } | { error: TaskError });

function taskError(err: unknown): TaskError {
  if (err instanceof MediaRejectedError) return { name: err.name, message: err.message, reason: err.reason, mimeType: err.mimeType };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

// libvips' operation cache keeps the files it decoded open (a WebP stays open after its task); each file here is read
// once and removed by the API right after, so nothing is worth caching and nothing may be held.
sharp.cache(false);

// Compiled now, while the pool waits for `ready`, not in the first task.
c2paWasm();

process.on('message', (msg: TaskMessage) => {
  void performTask(msg.kind, msg.input).then(
    (result) => ({ result }),
    (err: unknown) => ({ error: taskError(err) }),
  ).then((outcome) => {
    const answer = { id: msg.id, rssBytes: process.memoryUsage.rss(), wasmBytes: c2paWasmMemoryBytes(), ...outcome } as TaskAnswer;
    process.send?.(answer);
  });
});

process.send?.({ ready: true });
