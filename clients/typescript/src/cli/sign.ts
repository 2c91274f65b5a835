import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ApiError, type Client, type Job, type SignInput } from '../index.js';
import { writeVerified } from './download.js';
import { collectInputs, type Input } from './inputs.js';
import { Journal, type JournalEntry } from './journal.js';
import { lockOutDir, OutDirLocked } from './out-lock.js';
import { Progress } from './progress.js';
import { describeError, withRetries } from './retry.js';

export interface SignOptions {
  outDir: string;
  title?: string;
  creator?: string;
  template?: string;
  concurrency: number;
}

type Outcome = { outcome: 'signed' | 'skipped' } | { outcome: 'failed'; reason: string };

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * `mss sign`: every input uploaded, signed, waited for and downloaded into the out directory, `concurrency` at a
 * time. Each step is journalled before the next starts, and the sign request carries an idempotency key made from
 * the journalled upload, so a run that was killed at any point and started again signs nothing twice: a file already
 * written is skipped, a journalled job is waited for, and a sign request whose answer was lost is answered with the
 * job it made. Only one run at a time writes into an out directory (a second one exits 2). Resolves with the
 * process's exit code.
 */
export async function signCommand(client: Client, args: readonly string[], options: SignOptions, out: NodeJS.WriteStream = process.stdout): Promise<number> {
  const inputs = collectInputs(args, options.outDir);
  mkdirSync(options.outDir, { recursive: true });
  // One run per out directory: two would sign the same files twice and interleave the journal.
  let release: () => void;
  try {
    release = lockOutDir(options.outDir);
  } catch (err) {
    if (!(err instanceof OutDirLocked)) throw err;
    process.stderr.write(`mss: ${err.message}\n`);
    return 2;
  }
  process.once('exit', release); // Ctrl-C below exits at once
  try {
    return await signAll(client, inputs, options, out);
  } finally {
    process.off('exit', release);
    release();
  }
}

async function signAll(client: Client, inputs: Input[], options: SignOptions, out: NodeJS.WriteStream): Promise<number> {
  const journal = new Journal(options.outDir);
  const progress = new Progress(inputs.length, inputs.reduce((n, i) => n + i.size, 0));
  const request = { title: options.title, creator: options.creator, template: options.template };
  const requestDigest = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 16);
  const failures: { output: string; reason: string }[] = [];
  let signed = 0;
  let skipped = 0;

  const signOne = async (input: Input): Promise<Outcome> => {
    const target = path.join(options.outDir, input.output);
    const sourceSha256 = await sha256OfFile(input.source);
    let entry: JournalEntry = journal.get(input.output) ?? { output: input.output, source_sha256: sourceSha256, attempt: 1 };
    // A source that changed since is a new file.
    if (entry.source_sha256 !== sourceSha256) entry = { output: input.output, source_sha256: sourceSha256, attempt: 1 };
    if (entry.signed_sha256 !== undefined && (await sha256OfFile(target).catch(() => undefined)) === entry.signed_sha256) return { outcome: 'skipped' };

    let job: Job | undefined;
    if (entry.job_id !== undefined) {
      job = await withRetries(() => client.wait(entry.job_id!));
      if (job.status === 'failed') {
        // Asked again under a new key: the service keeps the failed job as it was.
        entry = { ...entry, attempt: entry.attempt + 1, job_id: undefined };
        job = undefined;
      }
    }
    if (job === undefined) {
      if (entry.upload_id === undefined) {
        // Resumable whatever the size: a dropped connection, or a run killed mid-file, goes on from the bytes the
        // service has (the session's URL is journalled as soon as it exists).
        const upload = await withRetries(() =>
          client.uploadFile(input.source, input.size, path.basename(input.source), {
            ...(entry.upload_session !== undefined ? { sessionUrl: entry.upload_session } : {}),
            onSessionUrl: (url) => {
              entry = { ...entry, upload_session: url };
              journal.record(entry);
            },
            onProgress: (sent) => progress.sent(input.output, sent),
          }),
        );
        entry = { ...entry, upload_id: upload.upload_id };
        journal.record(entry);
      }
      const body: SignInput = {
        upload_id: entry.upload_id!,
        manifest: { title: options.title ?? path.basename(input.source), ...(options.creator !== undefined ? { creator: options.creator } : {}) },
        ...(options.template !== undefined ? { template_id: options.template } : {}),
      } as SignInput;
      const idempotencyKey = `mss-${entry.upload_id}-${entry.attempt}-${requestDigest}`;
      const queued = await withRetries(() => client.sign(body, { idempotencyKey }));
      entry = { ...entry, job_id: queued.job_id };
      journal.record(entry);
      job = await withRetries(() => client.wait(queued.job_id));
    }
    if (job.status === 'failed' || !job.signed_file) {
      return { outcome: 'failed', reason: job.error ? `${job.error.code}: ${job.error.message}` : `job ${job.job_id} is ${job.status}` };
    }
    const { file_id: fileId, sha256 } = job.signed_file;
    await withRetries(async () => {
      const download = await client.download(fileId);
      await writeVerified(download.body, target, sha256);
    });
    journal.record({ ...entry, signed_sha256: sha256 });
    return { outcome: 'signed' };
  };

  // Ctrl-C: the journal already holds every step taken, so stopping at once loses nothing; say how to go on.
  const interrupted = () => {
    progress.end();
    process.stderr.write(`interrupted: run the same command again to resume (nothing is signed twice)\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  const queue = [...inputs];
  let refused: string | undefined;
  const worker = async () => {
    for (let input = queue.shift(); input; input = queue.shift()) {
      const result = await signOne(input).catch((err: unknown): Outcome => {
        // A key the service refuses fails every file alike: stop rather than say so for each.
        if (err instanceof ApiError && err.status === 401) {
          refused = err.message;
          queue.length = 0;
        }
        return { outcome: 'failed', reason: describeError(err) };
      });
      if (result.outcome === 'failed') failures.push({ output: input.output, reason: result.reason });
      else if (result.outcome === 'signed') signed += 1;
      else skipped += 1;
      progress.finished(input.output, input.size, result.outcome, result.outcome === 'failed' ? result.reason : '');
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, inputs.length)) }, worker));
  process.off('SIGINT', interrupted);
  progress.end();

  const notStarted = inputs.length - signed - skipped - failures.length;
  const parts = [`${signed} signed`, ...(skipped > 0 ? [`${skipped} already signed`] : []), `${failures.length} failed`, ...(notStarted > 0 ? [`${notStarted} not started`] : [])];
  out.write(`${inputs.length} file${inputs.length === 1 ? '' : 's'}: ${parts.join(', ')} (into ${options.outDir})\n`);
  for (const f of failures) out.write(`  failed: ${f.output}: ${f.reason}\n`);
  if (refused !== undefined) out.write(`stopped: the service refused the API key (${refused})\n`);
  return failures.length > 0 ? 1 : 0;
}
