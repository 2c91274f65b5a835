/**
 * c2pa-rs's reading of files larger than MAX_UPLOAD_BYTES (video and audio, up to their own limits), each in a
 * process of its own (verify-process.ts): the WASM memory it takes (about twice a large MP4) is returned when the
 * process exits instead of staying with the API process. One at a time per API process, a few more waiting; past
 * that, 503 with Retry-After. A read that takes longer than LARGE_VERIFY_TIMEOUT_MS is ended (503).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { C2paError } from '../../shared/c2pa/errors.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import type { VerificationReport } from '../../shared/c2pa/read-asset.js';
import { largeVerifyBusy, largeVerifySeconds } from '../../shared/metrics/metrics.js';
import { ApiError } from '../errors.js';
import type { VerifyAnswer, VerifyRequest } from './verify-process.js';

const CHILD = fileURLToPath(new URL('./verify-process.ts', import.meta.url));

/** Large files read at once per API process, and how many more may wait for their turn. */
export const LARGE_VERIFY_CONCURRENCY = 1;
export const LARGE_VERIFY_QUEUE = 4;
/** A 256 MiB MP4 reads in about 2 s here: a read this long is stuck. */
export const LARGE_VERIFY_TIMEOUT_MS = 180_000;

let running = 0;
const waiting: (() => void)[] = [];

function busy(): ApiError {
  largeVerifyBusy.inc();
  return new ApiError(503, 'verification_busy', 'large files are being verified; try again shortly', { 'Retry-After': '30' });
}

/** Waits for a slot; the function it returns gives the slot up (to the first waiter, who then holds it). */
async function turn(): Promise<() => void> {
  if (running < LARGE_VERIFY_CONCURRENCY) running += 1;
  else if (waiting.length >= LARGE_VERIFY_QUEUE) throw busy();
  // Handed over as it is freed, never re-counted: a request arriving meanwhile cannot slip in ahead.
  else await new Promise<void>((resolve) => waiting.push(resolve));
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
}

function readInChild(request: VerifyRequest): Promise<VerificationReport> {
  return new Promise((resolve, reject) => {
    // The API's own loader flags (tsx) so the child runs the same TypeScript.
    const child: ChildProcess = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new ApiError(503, 'verification_timeout', `the file could not be read within ${LARGE_VERIFY_TIMEOUT_MS / 1000} s; try again later`)));
    }, LARGE_VERIFY_TIMEOUT_MS);
    const finish = (settle: () => void) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      settle();
    };
    let answer: VerifyAnswer | undefined;
    child.once('message', (msg: VerifyAnswer) => {
      answer = msg;
    });
    child.once('error', (err) => finish(() => reject(err)));
    // Settled once the process is gone ('close': after its IPC channel delivered everything), so its memory is back
    // before the next large file's turn. Out of memory (a WASM trap ends the process) or killed: no answer.
    child.once('close', (code, signal) => finish(() => {
      if (!answer) reject(new Error(`the verification process ended without an answer (${signal ?? `exit ${code}`})`));
      else if ('report' in answer) resolve(answer.report);
      // c2pa-rs could not read the file: the same error an in-process read throws.
      else reject(answer.error.name === 'C2paError' ? new C2paError(answer.error.message) : new Error(`verification process: ${answer.error.message}`));
    }));
    child.send(request);
  });
}

/** readAssetFile in a process of its own, waiting for its turn (503 verification_busy when too many wait). */
export async function readLargeAssetFile(filePath: string, mimeType: SignableMimeType, trustAnchorsPem: string[]): Promise<VerificationReport> {
  const done = await turn();
  const started = performance.now();
  let outcome = 'failed';
  try {
    const report = await readInChild({ filePath, mimeType, trustAnchorsPem });
    outcome = 'read';
    return report;
  } catch (err) {
    if (err instanceof C2paError) outcome = 'unreadable';
    else if (err instanceof ApiError && err.code === 'verification_timeout') outcome = 'timeout';
    throw err;
  } finally {
    largeVerifySeconds.observe({ outcome }, (performance.now() - started) / 1000);
    done();
  }
}
