import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { recordJobEvents } from '../../shared/anchoring/job-webhooks.js';
import { statusAfterSigning } from '../../shared/anchoring/leaves.js';
import { recordSignJobOutcome } from '../../shared/audit/sign-jobs.js';
import { insertAnchorLeaf } from '../../shared/db/repositories/anchors.js';
import { insertRenditionParts, type RenditionPartRow } from '../../shared/db/repositories/rendition-parts.js';
import { insertSignedFile, updateSignJobStatus } from '../../shared/db/repositories/sign-jobs.js';
import { extensionFor } from '../../shared/media/formats.js';
import type { ImageCode } from '../../shared/softbinding/iscc-codec.js';
import { recordInRepository } from '../../shared/softbinding/repository.js';
import type { SignJobDeps } from './deps.js';
import type { PreparedJob } from './prepare.js';
import type { SignedMedia } from './sign-media.js';

function signedFilename(original: string, ext: string): string {
  const base = path.basename(original, path.extname(original)) || 'image';
  return `${base}-signed.${ext}`;
}

/** Where a signed file went in the file store: its key and, for a rendition, each part's row (the init segment's key first). */
export interface StoredSigned {
  storageKey: string;
  parts?: RenditionPartRow[];
}

/**
 * Writes the signed file to the file store under a fresh name per attempt (a concurrent duplicate run can never
 * overwrite the file a row points to): as it is in memory, or streamed from the workspace (a hard link for a local
 * store on the same disk). A signed rendition's parts go one by one under a fresh folder; if one fails, those already
 * stored are removed.
 */
export async function storeSignedFile(deps: SignJobDeps, prepared: PreparedJob, signed: SignedMedia): Promise<StoredSigned> {
  const { job, upload } = prepared;
  const name = `signed/${job.org_id}/${job.id}-${randomBytes(4).toString('hex')}`;
  if (signed.parts) {
    const parts: RenditionPartRow[] = [];
    try {
      for (const part of signed.parts) {
        const storageKey = `${name}/${part.position}.${part.role === 'init' ? 'mp4' : part.role === 'fragment' ? 'm4s' : 'txt'}`;
        await deps.files.putFile(storageKey, part.path);
        parts.push({ position: part.position, role: part.role, filename: part.filename, size: part.size, sha256: part.sha256, storage_key: storageKey });
      }
    } catch (err) {
      await removeStored(deps, { storageKey: '', parts });
      throw err;
    }
    return { storageKey: parts[0]!.storage_key, parts };
  }
  const storageKey = `${name}.${extensionFor(upload.mime_type)}`;
  if (signed.asset) await deps.files.write(storageKey, signed.asset);
  else await deps.files.putFile(storageKey, signed.path!);
  return { storageKey };
}

async function removeStored(deps: SignJobDeps, stored: StoredSigned): Promise<void> {
  const keys = stored.parts ? stored.parts.map((p) => p.storage_key) : [stored.storageKey];
  await Promise.all(keys.map((key) => deps.files.remove(key).catch(() => undefined)));
}

/**
 * Completes the job in one transaction: its signed file's row (and a rendition's parts), the file's hash in the pending anchor batch (no file
 * is left out), its manifest store and fingerprint in the repository, the job's status and its sign_job.signed webhook event. The stored file is only
 * kept with its row: a failed transaction, or a duplicate run of the job that recorded its file first, removes it.
 * Returns whether this run's file was kept.
 */
export async function completeSignJob(deps: SignJobDeps, prepared: PreparedJob, signed: SignedMedia, fingerprint: ImageCode | undefined, stored: StoredSigned): Promise<boolean> {
  const { job, upload, identity, settings } = prepared;
  const record = () => deps.knex.transaction(async (trx) => {
    const fileId = await insertSignedFile(
      {
        org_id: job.org_id,
        job_id: job.id,
        // A rendition is downloaded as a zip of its parts.
        filename: signedFilename(upload.filename, stored.parts ? 'zip' : extensionFor(upload.mime_type)),
        mime_type: upload.mime_type,
        size: signed.size,
        sha256: signed.sha256,
        storage_key: stored.storageKey,
        certificate_serial: identity.serial,
        certificate_subject: identity.subject,
        identity_certificate_serial: prepared.person?.identity.serial ?? null,
      },
      trx,
    );
    if (fileId && stored.parts) await insertRenditionParts(job.org_id, { signed_file_id: fileId }, stored.parts, trx);
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
    await removeStored(deps, stored);
    throw err;
  });
  if (!kept) await removeStored(deps, stored);
  return kept;
}
