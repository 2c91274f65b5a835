import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { buildManifestDefinition, type Timestamper } from '../shared/c2pa/index.js';
import { C2PA_WASM_WHOLE_READ_BYTES, signBytes, signFile } from '../shared/c2pa/sign-asset.js';
import { extensionFor, formatFor } from '../shared/media/formats.js';
import { isoDuration, mediaDurationSeconds } from '../shared/media/duration.js';
import { MediaRejectedError } from '../shared/media/errors.js';
import { assertImagePixelsWithin } from '../shared/media/image-pixels.js';
import { softBindingAssertion } from '../shared/softbinding/binding-value.js';
import type { FingerprintMode } from '../shared/softbinding/fingerprint-mode.js';
import { effectiveRepositorySettings, fingerprintImage, recordInRepository } from '../shared/softbinding/repository.js';
import { C2paError } from '../shared/c2pa/errors.js';
import { TimeStampTokenError } from '../shared/c2pa/timestamp-token.js';
import { TimestampUnavailableError } from '../shared/tsa/client.js';
import { addAnchorLeaf, statusAfterSigning } from '../shared/anchoring/leaves.js';
import { PENDING_STATUSES, SignJob } from '../shared/db/models/sign-job.js';
import { findUploadById } from '../shared/db/repositories/uploads.js';
import { NoSigningCertificateError, type SigningIdentity } from '../shared/pki/signing-identity.js';
import type { JobEvents, SignAttempt } from '../shared/queue/types.js';
import type { FileStore } from '../shared/storage/index.js';
import { VaultKeyNotFoundError, VaultUnavailableError } from '../shared/vault/types.js';
import { signJobs, signStageSeconds } from '../shared/metrics/metrics.js';
import { StorageUnavailableError } from '../shared/storage/index.js';
import { ownedTempName } from '../shared/storage/temp-owner.js';
import { imageContent } from './image-content.js';

export interface SignJobDeps {
  knex: Knex;
  files: FileStore;
  events: JobEvents;
  /** The organisation's signing identity (its own certificate and key). */
  signingIdentity: (orgId: string) => Promise<SigningIdentity>;
  timestamper?: Timestamper;
  logger: Logger;
  /**
   * Where a job of a file signed from disk (video, audio) keeps its copy of the upload and the signed file while it
   * works (a directory of its own inside, removed when the job ends, signed or not). Default: the OS temp directory; the worker uses DATA_DIR/tmp, on the
   * same disk as a local file store (no copy, see FileStore.readToFile) and never a memory-backed /tmp.
   */
  tempDir?: string;
  /** ffmpeg for video claim thumbnails (FFMPEG_PATH); without it video is signed without one. */
  ffmpegPath?: string;
  /** How image fingerprints are computed (FINGERPRINT_MODE). */
  fingerprintMode: FingerprintMode;
  /** Largest image (width x height from its header) signed at all (MAX_IMAGE_PIXELS). */
  maxImagePixels: number;
}

/** Wall and CPU milliseconds of each stage of a job, each stage ending where `lap` is called. */
function stageClock() {
  const ms: Record<string, number> = {};
  const cpuMs: Record<string, number> = {};
  let wallAt = performance.now();
  let cpuAt = process.cpuUsage();
  return {
    ms,
    cpuMs,
    lap(stage: string): void {
      const cpu = process.cpuUsage(cpuAt);
      const now = performance.now();
      ms[stage] = Math.round(now - wallAt);
      cpuMs[stage] = Math.round((cpu.user + cpu.system) / 1000);
      wallAt = now;
      cpuAt = process.cpuUsage();
    },
  };
}

/** Prefix of a job's own directory in the temp directory, after its process's (see sweepLeftovers). */
const JOB_DIR_PREFIX = 'sign-';

/** The code and words a failed job shows its owner; internals stay in the log. */
function errorColumns(err: unknown): { error_code: string; error_message: string } {
  if (err instanceof VaultUnavailableError) return { error_code: 'vault_unavailable', error_message: 'the key vault could not be reached' };
  if (err instanceof VaultKeyNotFoundError) return { error_code: 'vault_key_missing', error_message: 'the signing key is missing from the key vault' };
  if (err instanceof NoSigningCertificateError) return { error_code: 'no_signing_certificate', error_message: err.message };
  if (err instanceof TimestampUnavailableError || err instanceof TimeStampTokenError) {
    return { error_code: 'timestamp_unavailable', error_message: 'the time-stamp authority could not be reached or gave no valid timestamp' };
  }
  if (err instanceof StorageUnavailableError) return { error_code: 'storage_unavailable', error_message: 'file storage could not be reached' };
  if (err instanceof MediaRejectedError && err.reason === 'too_many_pixels') return { error_code: 'image_too_large', error_message: err.message };
  if (err instanceof C2paError) return { error_code: 'c2pa_error', error_message: `the file could not be signed: ${err.message}` };
  return { error_code: 'signing_failed', error_message: 'the file could not be signed' };
}

function signedFilename(original: string, ext: string): string {
  const base = path.basename(original, path.extname(original)) || 'image';
  return `${base}-signed.${ext}`;
}

async function setStatus(deps: SignJobDeps, jobId: string, patch: Partial<Pick<SignJob, 'status' | 'attempts' | 'error_code' | 'error_message'>>, trx?: Knex.Transaction) {
  await SignJob.query(trx ?? deps.knex).patch({ ...patch, updated_at: new Date() }).where({ id: jobId });
}

/**
 * Signs one job's upload. Safe to run again for the same job (a retry, or a job re-delivered after a
 * worker was killed): a job already signed is left as it is, and the unique job_id on signed_files
 * keeps exactly one signed file per job.
 */
export async function processSignJob(deps: SignJobDeps, jobId: string, attempt: SignAttempt): Promise<void> {
  const clock = stageClock();
  // Claim the job in one statement. A job that is already signed or failed is left alone: the signed file
  // and the `signed` status are written in one transaction, so a re-delivered job never signs twice.
  const [job] = (await SignJob.query(deps.knex)
    .patch({ status: 'processing', attempts: attempt.number, updated_at: new Date() })
    .where({ id: jobId })
    .whereIn('status', PENDING_STATUSES)
    .returning('*')) as unknown as SignJob[];
  if (!job) return;
  const log = deps.logger.child({ jobId, attempt: attempt.number });
  // An image is read into memory once, signed there and written to the store once. Video and audio (and any file
  // over C2PA_WASM_WHOLE_READ_BYTES) stay on disk: c2pa-rs reads the source from its file (FileBlob), ffmpeg seeks in
  // it, and the signed file is written to a file and streamed into the store; that directory is removed at the end,
  // whatever happens.
  let workDir: string | undefined;
  try {
    const upload = await findUploadById(job.upload_id, deps.knex);
    if (!upload) throw new Error(`upload ${job.upload_id} of job ${jobId} is gone`);
    const identity = await deps.signingIdentity(job.org_id);
    const settings = await effectiveRepositorySettings(deps.knex, job.org_id, job);
    const kind = formatFor(upload.mime_type)?.kind ?? 'image';
    const inMemory = kind === 'image' && Number(upload.size) <= C2PA_WASM_WHOLE_READ_BYTES;
    let bytes: Buffer | undefined;
    let sourcePath: string | undefined;
    if (inMemory) {
      bytes = await deps.files.read(upload.storage_key);
    } else {
      const tempDir = deps.tempDir ?? tmpdir();
      await mkdir(tempDir, { recursive: true, mode: 0o700 });
      workDir = await mkdtemp(path.join(tempDir, ownedTempName(`${JOB_DIR_PREFIX}${jobId}-`)));
      sourcePath = path.join(workDir, 'source');
      await deps.files.readToFile(upload.storage_key, sourcePath);
    }
    const seconds = sourcePath === undefined || kind === 'image' ? undefined : await mediaDurationSeconds(sourcePath, upload.mime_type);
    const medium = { kind, duration: seconds === undefined ? undefined : isoDuration(seconds) };
    clock.lap('prepare');
    // The fingerprint goes into the manifest (c2pa.soft-binding) and the index, so a stripped copy can be found
    // again, unless the job's soft-binding setting is off. ISCC image codes are of images; video and audio get none.
    // Checked again here (an upload from before the limit, or a limit lowered since): nothing decodes a bomb.
    if (kind === 'image') await assertImagePixelsWithin((bytes ?? sourcePath)!, deps.maxImagePixels);
    const softBinding = kind === 'image' && settings.softBinding;
    const content = bytes
      ? await imageContent(bytes, { fingerprint: softBinding ? deps.fingerprintMode : undefined, thumbnail: job.manifest.thumbnail === true })
      : { fingerprint: softBinding && sourcePath ? await fingerprintImage(sourcePath, deps.fingerprintMode) : undefined };
    const { fingerprint } = content;
    if (softBinding && !fingerprint) log.warn('no ISCC fingerprint could be computed; signing without a soft binding');
    clock.lap('fingerprint');
    const signing = {
      mimeType: upload.mime_type,
      // Built once signing has looked for a manifest in the source: opened (parent ingredient) or created.
      manifest: (sourceHasManifest: boolean) => buildManifestDefinition(job.manifest, {
        sourceHasManifest,
        contentAssertions: fingerprint ? [softBindingAssertion(fingerprint.iscc)] : [],
        medium,
      }),
      key: identity.key,
      chainDer: identity.chainDer,
      timestamper: deps.timestamper,
      ffmpegPath: deps.ffmpegPath,
      onThumbnailError: (err: unknown) => log.warn({ err }, 'signing without the claim thumbnail the manifest asks for'),
    };
    const signedPath = workDir && path.join(workDir, 'signed');
    // Images signed in memory skip c2pa-rs's second pass over the signed file (see SignOptions.verifyAfterSign);
    // the formats signed from disk keep it.
    const signed = bytes
      ? await signBytes({ ...signing, bytes, thumbnail: content.thumbnail, verifyAfterSign: false })
      : await signFile({ ...signing, sourcePath: sourcePath!, outputPath: signedPath! });
    const { manifestStore, sha256 } = signed;
    const size = 'asset' in signed ? signed.asset.byteLength : signed.size;
    clock.lap('sign');

    const ext = extensionFor(upload.mime_type);
    // A fresh name per attempt: a concurrent duplicate run can never overwrite the file a row points to.
    const storageKey = `signed/${job.org_id}/${jobId}-${randomBytes(4).toString('hex')}.${ext}`;
    // Written as it is in memory, or streamed from the signed file (a hard link for a local store on the same disk).
    if ('asset' in signed) await deps.files.write(storageKey, signed.asset);
    else await deps.files.putFile(storageKey, signedPath!);
    const record = () => deps.knex.transaction(async (trx) => {
      const inserted: Array<{ id: string }> = await trx('signed_files')
        .insert({
          id: randomUUID(),
          org_id: job.org_id,
          job_id: jobId,
          filename: signedFilename(upload.filename, ext),
          mime_type: upload.mime_type,
          size,
          sha256,
          storage_key: storageKey,
          certificate_serial: identity.serial,
          certificate_subject: identity.subject,
        })
        .onConflict('job_id')
        .ignore()
        .returning('id');
      if (inserted.length > 0) {
        // The signed file's hash joins the pending anchor batch in the same transaction: no file is left out.
        await addAnchorLeaf(trx, { signedFileId: inserted[0]!.id, sha256 });
        await recordInRepository(trx, { signedFileId: inserted[0]!.id, orgId: job.org_id, manifestStore, fingerprint, discoverable: settings.discoverable });
      }
      // A duplicate run (its insert ignored) must not move a job whose anchoring went on back to signed.
      const status = inserted.length > 0 ? 'signed' : await statusAfterSigning(trx, jobId);
      await setStatus(deps, jobId, { status, error_code: null, error_message: null }, trx);
      return inserted.length > 0;
    });
    // The stored file is only kept with its row: a failed transaction or a duplicate run removes it.
    const kept = await record().catch(async (err: unknown) => {
      await deps.files.remove(storageKey).catch(() => undefined);
      throw err;
    });
    if (!kept) await deps.files.remove(storageKey);
    clock.lap('store');
    if (!kept) {
      // Another run of this job recorded its file first (a job re-delivered while the first run was still going).
      log.warn({ serial: identity.serial }, 'signed by a duplicate run of the job; this copy was discarded');
      return;
    }
    // Where the time went, for operators: prepare (claim, read, identity, settings), fingerprint, sign (c2pa-rs,
    // vault, TSA), store (the signed file and its rows). CPU is the process's, so a job's own where one process runs
    // one job at a time (the sandboxed worker).
    log.info({ serial: identity.serial, bytes: size, ms: clock.ms, cpu: clock.cpuMs }, 'signed');
    signJobs.inc({ outcome: 'signed', error_code: '' });
    for (const [stage, ms] of Object.entries(clock.ms)) signStageSeconds.observe({ stage }, ms / 1000);
  } catch (err) {
    // An image over the pixel limit stays over it: no retry can help.
    const final = attempt.final || (err instanceof MediaRejectedError && err.reason === 'too_many_pixels');
    log.warn({ err }, final ? 'sign job failed for good' : 'sign attempt failed; will retry');
    signJobs.inc({ outcome: final ? 'failed' : 'retried', error_code: errorColumns(err).error_code });
    // Between attempts the job is waiting again, so it shows as queued.
    await setStatus(deps, jobId, final ? { status: 'failed', ...errorColumns(err) } : { status: 'queued' });
    throw err;
  } finally {
    if (workDir) await rm(workDir, { recursive: true, force: true }).catch((err: unknown) => log.warn({ err, workDir }, 'could not remove the job\'s temp files'));
    await deps.events.publish(jobId).catch(() => undefined);
  }
}

/** Records a job BullMQ gave up on outside our processor (e.g. its worker died too often). */
export async function markAbandoned(deps: Pick<SignJobDeps, 'knex' | 'events'>, jobId: string): Promise<void> {
  const changed = await SignJob.query(deps.knex)
    .patch({ status: 'failed', error_code: 'worker_lost', error_message: 'the worker signing this file stopped repeatedly', updated_at: new Date() })
    .where({ id: jobId })
    .whereIn('status', ['queued', 'processing']);
  if (changed > 0) await deps.events.publish(jobId);
}
