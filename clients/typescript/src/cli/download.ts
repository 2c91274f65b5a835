import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type { Client } from '../index.js';
import { withRetries } from './retry.js';

/** Writes the download beside its target and moves it in place once its digest is the job's: never half a file. */
export async function writeVerified(body: ReadableStream<Uint8Array>, target: string, sha256: string): Promise<void> {
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.mss-partial`);
  const hash = createHash('sha256');
  try {
    await pipeline(
      Readable.fromWeb(body as NodeReadableStream<Uint8Array>),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(partial),
    );
    const got = hash.digest('hex');
    if (got !== sha256) throw new Error(`the download's sha256 is ${got}, not the job's ${sha256}`);
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** `mss download`: a job's signed file, once the job is done, into `outDir` under the name the service gives it. */
export async function downloadInto(client: Client, jobId: string, outDir: string): Promise<string> {
  const job = await withRetries(() => client.wait(jobId));
  if (!job.signed_file) throw new Error(job.error ? `job ${jobId} failed: ${job.error.code}: ${job.error.message}` : `job ${jobId} is ${job.status}`);
  const { file_id: fileId, sha256 } = job.signed_file;
  return withRetries(async () => {
    const download = await client.download(fileId);
    const target = path.join(outDir, download.filename);
    await writeVerified(download.body, target, sha256);
    return target;
  });
}
