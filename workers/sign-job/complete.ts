import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { recordJobEvents } from '../../shared/anchoring/job-webhooks.js';
import { statusAfterSigning } from '../../shared/anchoring/leaves.js';
import { recordSignJobOutcome } from '../../shared/audit/sign-jobs.js';
import { insertAnchorLeaf } from '../../shared/db/repositories/anchors.js';
import { insertSignedFile, updateSignJobStatus } from '../../shared/db/repositories/sign-jobs.js';
import { extensionFor } from '../../shared/media/formats.js';
import type { ImageCode } from '../../shared/softbinding/iscc-image.js';
import { recordInRepository } from '../../shared/softbinding/repository.js';
import type { SignJobDeps } from './deps.js';
import type { PreparedJob } from './prepare.js';
import type { SignedMedia } from './sign-media.js';

function signedFilename(original: string, ext: string): string {
  const base = path.basename(original, path.extname(original)) || 'image';
  return `${base}-signed.${ext}`;
}

/**
 * Writes the signed file to the file store under a fresh name per attempt (a concurrent duplicate run can never
 * overwrite the file a row points to): as it is in memory, or streamed from the workspace (a hard link for a local
 * store on the same disk). Returns its storage key.
 */
export async function storeSignedFile(deps: SignJobDeps, prepared: PreparedJob, signed: SignedMedia): Promise<string> {
  const { job, upload } = prepared;
  const storageKey = `signed/${job.org_id}/${job.id}-${randomBytes(4).toString('hex')}.${extensionFor(upload.mime_type)}`;
  if (signed.asset) await deps.files.write(storageKey, signed.asset);
  else await deps.files.putFile(storageKey, signed.path!);
  return storageKey;
}

/**
 * Completes the job in one transaction: its signed file's row, the file's hash in the pending anchor batch (no file
 * is left out), its manifest store and fingerprint in the repository, the job's status and its sign_job.signed webhook event. The stored file is only
 * kept with its row: a failed transaction, or a duplicate run of the job that recorded its file first, removes it.
 * Returns whether this run's file was kept.
 */
export async function completeSignJob(deps: SignJobDeps, prepared: PreparedJob, signed: SignedMedia, fingerprint: ImageCode | undefined, storageKey: string): Promise<boolean> {
  const { job, upload, identity, settings } = prepared;
  const record = () => deps.knex.transaction(async (trx) => {
    const fileId = await insertSignedFile(
      {
        org_id: job.org_id,
        job_id: job.id,
        filename: signedFilename(upload.filename, extensionFor(upload.mime_type)),
        mime_type: upload.mime_type,
        size: signed.size,
        sha256: signed.sha256,
        storage_key: storageKey,
        certificate_serial: identity.serial,
        certificate_subject: identity.subject,
      },
      trx,
    );
    if (fileId) {
      await insertAnchorLeaf({ signedFileId: fileId, sha256: signed.sha256 }, trx);
      await recordInRepository(trx, { signedFileId: fileId, orgId: job.org_id, manifestStore: signed.manifestStore, fingerprint, discoverable: settings.discoverable });
    }
    // A duplicate run (its insert ignored) must not move a job whose anchoring went on back to signed.
    const status = fileId ? 'signed' : await statusAfterSigning(trx, job.id);
    await updateSignJobStatus(job.id, { status, error_code: null, error_message: null }, trx);
    if (fileId) {
      await recordJobEvents(trx, deps.baseUrl, 'sign_job.signed', [job.id]);
      await recordSignJobOutcome(trx, job.id, 'sign.signed', 'success', { file_id: fileId, file_sha256: signed.sha256, certificate_serial: identity.serial, mime_type: upload.mime_type, size: signed.size });
    }
    return fileId !== undefined;
  });
  const kept = await record().catch(async (err: unknown) => {
    await deps.files.remove(storageKey).catch(() => undefined);
    throw err;
  });
  if (!kept) await deps.files.remove(storageKey);
  return kept;
}
