/**
 * Resumable uploads (tus 1.0): sessions owned by an organisation, whose bytes arrive over as many requests as the
 * connection needs, and which become an ordinary upload (storeUpload: the same checks as POST /v1/media/upload) once
 * the last byte is in. The protocol itself is @tus/server's (api/media/resumable/).
 */
import type { Knex } from '../../shared/db/knex.js';
import { findUploadById, type UploadView } from '../../shared/db/repositories/uploads.js';
import {
  claimUploadSessionCompletion,
  deleteUploadSession,
  findOrgUploadSession,
  insertUploadSession,
  markUploadSessionCompleted,
  reopenUploadSession,
  touchUploadSession,
  uploadSessionExpired,
  type UploadSession,
} from '../../shared/db/repositories/upload-sessions.js';
import { kindOf } from '../../shared/errors.js';
import { largestUploadLimit } from '../../shared/config.js';
import type { Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, conflict } from '../errors.js';
import { describeBytes } from '../media/multipart-file.js';
import { actorColumns, storeUpload } from './uploads.js';

type Deps = Pick<AppContext, 'knex' | 'config' | 'files' | 'staging' | 'uploadCheckPool' | 'resumable' | 'logger'>;

export const RESUMABLE_PATH = '/v1/media/resumable-uploads';

const expirySeconds = (deps: Pick<AppContext, 'config'>) => deps.config.uploadExpiryHours * 3600;

/**
 * 413 unless `size` fits the largest per-kind limit: the kind is known only from the content, so the limit of the
 * kind it turns out to be is checked again when the last byte is in.
 */
export function assertResumableSize(config: AppContext['config'], size: number): void {
  const limit = largestUploadLimit(config);
  if (size <= limit) return;
  throw new ApiError('too_large', 'payload_too_large', `uploads may be at most ${limit} bytes (${describeBytes(limit)}, the largest of MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO); this one declares ${size} bytes (${describeBytes(size)})`);
}

/** Records a session for the caller's organisation before any of its bytes are stored. */
export async function openUploadSession(deps: Pick<AppContext, 'knex' | 'config'>, principal: Principal, session: { id: string; size: number; filename: string }): Promise<UploadSession> {
  assertResumableSize(deps.config, session.size);
  return insertUploadSession({ ...session, org_id: principal.orgId, ...actorColumns(principal) }, expirySeconds(deps), deps.knex);
}

/**
 * The organisation's session: 404 for another organisation's, an unknown id, or one past its expiry (tus allows 404
 * or 410 for an upload the server removed; 404 either way, so that an expired upload and a swept one look alike).
 */
export async function findUploadSession(knex: Knex, orgId: string, id: string): Promise<UploadSession> {
  const session = /^[0-9a-f-]{36}$/i.test(id) ? await findOrgUploadSession(orgId, id.toLowerCase(), knex) : undefined;
  if (!session) throw new ApiError('not_found', 'not_found', 'upload session not found');
  if (await uploadSessionExpired(session.id, knex)) throw new ApiError('not_found', 'upload_expired', `the upload session expired (no bytes for UPLOAD_EXPIRY_HOURS); start a new one`);
  return session;
}

/** A PATCH is activity: the session's expiry moves on. */
export async function touchSession(deps: Pick<AppContext, 'knex' | 'config'>, id: string): Promise<Date | undefined> {
  return touchUploadSession(id, expirySeconds(deps), deps.knex);
}

/** Removes a session and its bytes (bytes first: no bytes are ever left without a row naming them). */
export async function abandonUploadSession(deps: Pick<AppContext, 'knex' | 'resumable'>, id: string): Promise<void> {
  await deps.resumable.remove(id);
  await deleteUploadSession(id, deps.knex);
}

/**
 * The last byte is in: the bytes go through storeUpload (format from the content, the limit of that kind, an image's
 * pixels, the file store) and become an upload. When that refuses the file, the session and its bytes are removed
 * and nothing is recorded; when a service it needs is unavailable (503), the bytes are kept and the session takes
 * a new try: a PATCH at the final offset with an empty body.
 */
export async function completeUploadSession(deps: Deps, principal: Principal, id: string): Promise<UploadView> {
  const session = await claimUploadSessionCompletion(id, deps.knex);
  if (!session) return completedUpload(deps.knex, principal.orgId, id);
  let upload: UploadView;
  try {
    const staged = await deps.resumable.stage(id, deps.staging, Number(session.size));
    upload = await storeUpload(deps, principal, staged, session.filename);
  } catch (err) {
    if (kindOf(err) === 'unavailable') await reopenUploadSession(id, deps.knex);
    else await abandonUploadSession(deps, id);
    throw err;
  }
  // Recorded: what follows only tidies up (the sweep removes what is left at the session's expiry).
  await deps.resumable.remove(id).catch((err: unknown) => deps.logger.warn({ err, sessionId: id }, 'resumable upload bytes not removed; the sweep will'));
  await markUploadSessionCompleted(id, upload.upload_id, deps.knex).catch((err: unknown) => deps.logger.warn({ err, sessionId: id }, 'upload session not marked completed'));
  return upload;
}

/** The upload a completed session became; 409 while another request is completing it. */
async function completedUpload(knex: Knex, orgId: string, id: string): Promise<UploadView> {
  const session = await findOrgUploadSession(orgId, id, knex);
  const upload = session?.upload_id ? await findUploadById(session.upload_id, knex) : undefined;
  if (upload) return upload.toPublic();
  throw conflict('the upload is being completed; ask GET for its state', 'upload_completing');
}

export interface UploadSessionView {
  session_id: string;
  upload_url: string;
  status: UploadSession['status'];
  filename: string;
  size: number;
  offset: number;
  upload: UploadView | null;
  expires_at: string;
  created_at: string;
}

/** The session as GET shows it: the bytes received so far and, once completed, the upload it became. */
export async function uploadSessionView(deps: Pick<AppContext, 'knex' | 'config' | 'resumable'>, session: UploadSession): Promise<UploadSessionView> {
  const size = Number(session.size);
  const offset = session.status === 'receiving' ? (await deps.resumable.datastore().then((store) => store.getUpload(session.id)).catch(() => undefined))?.offset ?? 0 : size;
  const upload = session.upload_id ? await findUploadById(session.upload_id, deps.knex) : undefined;
  return {
    session_id: session.id,
    upload_url: `${deps.config.baseUrl}${RESUMABLE_PATH}/${session.id}`,
    status: session.status,
    filename: session.filename,
    size,
    offset,
    upload: upload ? upload.toPublic() : null,
    expires_at: session.expires_at.toISOString(),
    created_at: session.created_at.toISOString(),
  };
}
