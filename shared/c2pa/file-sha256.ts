import { Worker } from 'node:worker_threads';

/**
 * The SHA-256 (hex) of a file, computed on a worker thread of its own: the caller's thread stays free for work of its
 * own over the same file (signing checks the signed file's BMFF hash while its SHA-256 is computed), so on a machine
 * with a core to spare the two hashes take the time of one. The thread reads synchronously (it has nothing else to
 * do) into one buffer it reuses: no stream, and no new memory per read. Memory: that buffer. The worker's code is
 * plain JavaScript (eval), so it runs the same under tsx and node, and is started without the parent's loader flags.
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
try {
  parentPort.postMessage({ sha256: workerData.filePaths.map(sha256Of) });
} catch (err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}
`;

/** The SHA-256 (hex) of each file, in order, computed one after the other on one worker thread of their own. */
export function sha256OfFiles(filePaths: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { filePaths, readBytes: READ_BYTES } });
    let settled = false;
    worker.once('message', (message: { sha256?: string[]; error?: string }) => {
      settled = true;
      if (message.sha256) resolve(message.sha256);
      else reject(new Error(`could not hash ${filePaths.length === 1 ? filePaths[0] : 'the files'}: ${message.error}`));
      void worker.terminate();
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the hashing thread stopped (exit code ${code})`));
    });
  });
}

export async function sha256OfFile(filePath: string): Promise<string> {
  return (await sha256OfFiles([filePath]))[0]!;
}
