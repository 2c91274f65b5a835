import { Worker } from 'node:worker_threads';

/**
 * The SHA-256 (hex) of a file, computed on a worker thread of its own: the caller's thread stays free for work of its
 * own over the same file (signing checks the signed file's BMFF hash while its SHA-256 is computed), so on a machine
 * with a core to spare the two hashes take the time of one. Memory: the read stream's buffer. The worker's code is
 * plain JavaScript (eval), so it runs the same under tsx and node.
 */

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { createReadStream } = require('node:fs');
const digests = [];
const next = (i) => {
  if (i === workerData.filePaths.length) return parentPort.postMessage({ sha256: digests });
  const hash = createHash('sha256');
  createReadStream(workerData.filePaths[i], { highWaterMark: 1024 * 1024 })
    .on('data', (chunk) => hash.update(chunk))
    .on('error', (err) => parentPort.postMessage({ error: String(err && err.message || err) }))
    .on('end', () => {
      digests.push(hash.digest('hex'));
      next(i + 1);
    });
};
next(0);
`;

/** The SHA-256 (hex) of each file, in order, computed one after the other on one worker thread of their own. */
export function sha256OfFiles(filePaths: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { filePaths } });
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
