import { Worker } from 'node:worker_threads';

/**
 * The SHA-256 (hex) of files, computed on a worker thread of their own: the caller's thread stays free for work of its
 * own over the same file (signing checks the signed file's BMFF hash while its SHA-256 is computed), so on a machine
 * with a core to spare the two hashes take the time of one. The thread can be started before the files are written
 * (startHashingThread): its start, an isolate of its own, then runs while they are. It reads synchronously (it has
 * nothing else to do) into one buffer it reuses: no stream, and no new memory per read. Memory: that buffer. Its code
 * is plain JavaScript (eval), so it runs the same under tsx and node, and is started without the parent's loader flags.
 */

const READ_BYTES = 1024 * 1024;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, openSync, readSync } = require('node:fs');
const buffer = Buffer.allocUnsafe(workerData.readBytes);
const sha256Of = (filePath) => {
  const hash = createHash('sha256');
  const fd = openSync(filePath, 'r');
  try {
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
};
parentPort.once('message', (filePaths) => {
  try {
    parentPort.postMessage({ sha256: filePaths.map(sha256Of) });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;

/** A hashing thread, started: it hashes the files it is given once, then ends. */
export interface HashingThread {
  /** The SHA-256 (hex) of each file, in order, one after the other. */
  sha256Of(filePaths: readonly string[]): Promise<string[]>;
  /** Ends the thread (unused, or whatever it is doing); one that has answered ends on its own. */
  close(): Promise<void>;
}

/** Starts a hashing thread; it waits, holding nothing open but itself, until it is given files or closed. */
export function startHashingThread(): HashingThread {
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { readBytes: READ_BYTES } });
  // Waiting, it does not keep the process alive; asked, it does, until it answers.
  worker.unref();
  let named = 'the files';
  const answer = new Promise<string[]>((resolve, reject) => {
    worker.once('message', (message: { sha256?: string[]; error?: string }) => {
      if (message.sha256) resolve(message.sha256);
      else reject(new Error(`could not hash ${named}: ${message.error}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the hashing thread stopped (exit code ${code})`)));
  });
  // A failure before it is asked is reported when it is.
  answer.catch(() => undefined);
  let asked = false;
  let answered = false;
  return {
    async sha256Of(filePaths) {
      if (asked) throw new Error('a hashing thread hashes once');
      asked = true;
      if (filePaths.length === 1) named = filePaths[0]!;
      worker.ref();
      worker.postMessage([...filePaths]);
      try {
        const sha256 = await answer;
        answered = true;
        return sha256;
      } finally {
        void worker.terminate();
      }
    },
    async close() {
      // Once it has answered it holds nothing open, and is ending: that is not waited for (its isolate's teardown
      // can take tens of milliseconds).
      if (answered) return;
      await worker.terminate();
    },
  };
}

/** The SHA-256 (hex) of each file, in order, computed one after the other on one worker thread of their own. */
export function sha256OfFiles(filePaths: readonly string[]): Promise<string[]> {
  return startHashingThread().sha256Of(filePaths);
}
