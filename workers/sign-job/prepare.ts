import path from 'node:path';
import { C2PA_WASM_WHOLE_READ_BYTES } from '../../shared/c2pa/sign-asset.js';
import { renditionParts, type RenditionPartRow } from '../../shared/db/repositories/rendition-parts.js';
import { findUploadById, type Upload } from '../../shared/db/repositories/uploads.js';
import type { SignJob } from '../../shared/db/repositories/sign-jobs.js';
import { isoDuration, mediaDurationSeconds } from '../../shared/media/duration.js';
import type { MediaKind } from '../../shared/media/format-descriptor.js';
import { formatFor } from '../../shared/media/formats.js';
import { IdentityCertificateMissingError } from '../../shared/pki/person-signing-identity.js';
import type { SigningIdentity } from '../../shared/pki/signing-identity.js';
import { effectiveRepositorySettings, type RepositorySettings } from '../../shared/softbinding/repository.js';
import type { SignJobDeps } from './deps.js';
import type { JobWorkspace } from './workspace.js';

/** A claimed job with everything signing reads: its upload, the organisation's identity and settings, the media. */
export interface PreparedJob {
  job: SignJob;
  upload: Upload;
  identity: SigningIdentity;
  /** The person the job signs as (CAWG identity assertion), with the roles asked for; absent: the organisation alone. */
  person?: { identity: SigningIdentity; roles: string[] };
  settings: RepositorySettings;
  kind: MediaKind;
  /** An image small enough to sign in memory: its bytes. */
  bytes?: Buffer;
  /** Anything else: the upload's copy in the job's workspace (a rendition's: its init segment). */
  sourcePath?: string;
  /** A fragmented MP4 rendition: its parts in order, each copied into the workspace. */
  rendition?: (RenditionPartRow & { path: string })[];
  /** Video and audio: their duration, for the manifest. */
  medium: { kind: MediaKind; duration: string | undefined };
}

/**
 * Reads what a job signs. An image is read into memory once, signed there and written to the store once. Video and
 * audio (and any file over C2PA_WASM_WHOLE_READ_BYTES) stay on disk: MP4, M4V, MOV and M4A (shared/c2pa/bmff-sign.ts),
 * WAV, MP3 and FLAC (shared/c2pa/data-hash-sign.ts) are signed streamed from the file, other formats read by c2pa-rs
 * from it (FileBlob); ffmpeg seeks in it, and the
 * signed file is written to a file in the workspace. A fragmented MP4 rendition's parts are copied into the workspace
 * (its duration is not read: no single file holds its media).
 */
export async function prepareSignJob(deps: SignJobDeps, job: SignJob, workspace: JobWorkspace): Promise<PreparedJob> {
  const upload = await findUploadById(job.upload_id, deps.knex);
  if (!upload) throw new Error(`upload ${job.upload_id} of job ${job.id} is gone`);
  const identity = await deps.signingIdentity(job.org_id);
  const person = await personOf(deps, job);
  const settings = await effectiveRepositorySettings(deps.knex, job.org_id, job);
  const kind = formatFor(upload.mime_type)?.kind ?? 'image';
  const inMemory = kind === 'image' && Number(upload.size) <= C2PA_WASM_WHOLE_READ_BYTES;
  let bytes: Buffer | undefined;
  let sourcePath: string | undefined;
  const parts = await renditionParts(job.org_id, { upload_id: upload.id }, deps.knex);
  if (parts.length) {
    // A rendition: every part copied out (one at a time: a rendition may have thousands), signed from there.
    const dir = await workspace.dir();
    const rendition: PreparedJob['rendition'] = [];
    for (const part of parts) {
      const partPath = path.join(dir, `part-${part.position}`);
      await deps.files.readToFile(part.storage_key, partPath);
      rendition.push({ ...part, path: partPath });
    }
    return { job, upload, identity, person, settings, kind, sourcePath: rendition[0]!.path, rendition, medium: { kind, duration: undefined } };
  }
  if (inMemory) {
    bytes = await deps.files.read(upload.storage_key);
  } else {
    sourcePath = path.join(await workspace.dir(), 'source');
    await deps.files.readToFile(upload.storage_key, sourcePath);
  }
  const seconds = sourcePath === undefined || kind === 'image' ? undefined : await mediaDurationSeconds(sourcePath, upload.mime_type);
  return { job, upload, identity, person, settings, kind, bytes, sourcePath, medium: { kind, duration: seconds === undefined ? undefined : isoDuration(seconds) } };
}

/** The person a job signs as: asked for with roles; a person deleted since (their certificate revoked) has none. */
async function personOf(deps: SignJobDeps, job: SignJob): Promise<PreparedJob['person']> {
  if (job.identity_roles === null || job.identity_roles === undefined) return undefined;
  if (!job.identity_user_id) throw new IdentityCertificateMissingError('the user the job signs as was removed from the organisation');
  if (!deps.personIdentity) throw new Error('this worker was given no way to load identity certificates');
  return { identity: await deps.personIdentity(job.org_id, job.identity_user_id), roles: job.identity_roles };
}
