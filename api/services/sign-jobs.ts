/**
 * Sign jobs as the web role sees them: asking for a signature (requestSignature), reading a job (getSignJob, which
 * can wait for it), listing them, and opening a signed file. The worker role does the signing (workers/sign-job.ts).
 */
import type { Readable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { recordAuditEvent } from '../../shared/audit/record.js';
import { actorOf } from '../audit-actor.js';
import { anchorViewsForFiles } from '../../shared/anchoring/views.js';
import { mergeManifest } from '../../shared/c2pa/parse-manifest.js';
import type { ManifestRequest } from '../../shared/domain/manifest-input.js';
import type { ManifestPlacement } from '../../shared/domain/manifest-placement.js';
import { assertRemoteManifestSupported } from '../../shared/c2pa/remote-manifest.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { renditionPartCounts, renditionParts } from '../../shared/db/repositories/rendition-parts.js';
import type { PageRequest } from '../../shared/db/page.js';
import {
  deleteSignJob,
  findOrgSignedFile,
  findOrgSignJob,
  findSignJobByIdempotencyKey,
  insertSignJob,
  listOrgSignJobs,
  signedFileOfJob,
  signedFilesOfJobs,
  type SignJob,
} from '../../shared/db/repositories/sign-jobs.js';
import type { Upload } from '../../shared/db/repositories/uploads.js';
import { formatFor } from '../../shared/media/formats.js';
import { cleanTitle } from '../../shared/media/walks/document-title.js';
import { PENDING_STATUSES, SIGNED_STATUSES, type JobStatus } from '../../shared/job-status.js';
import { noCertificateError, orgSigningState } from '../../shared/pki/org-signing.js';
import { personCertificateInForce } from '../../shared/pki/person-signing-identity.js';
import type { Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, conflict, notFound } from '../errors.js';
import { jobView, renditionsOf, type JobView } from '../../shared/anchoring/job-view.js';
import { renditionZip } from '../media/rendition-zip.js';
import { pageResult } from '../pagination.js';
import { c2paManifestLink } from './manifest-repository.js';
import { liveTemplate } from './manifest-templates.js';
import { actorColumns, findUpload } from './uploads.js';

type SignJobsContext = Pick<AppContext, 'knex' | 'config' | 'signQueue' | 'jobEvents' | 'files' | 'logger'>;

/** A job's public view with its signed file and that file's anchor. */
async function viewOf(ctx: Pick<SignJobsContext, 'knex' | 'config'>, job: SignJob): Promise<JobView> {
  const file = SIGNED_STATUSES.includes(job.status) ? await signedFileOfJob(job.id) : undefined;
  const anchors = file ? await anchorViewsForFiles(ctx.knex, ctx.config.baseUrl, [file.id]) : undefined;
  const renditions = renditionsOf(await renditionPartCounts(job.org_id, 'signed_file_id', file ? [file.id] : [], ctx.knex));
  return jobView(ctx.config.baseUrl, job, file, file && anchors?.get(file.id), file && renditions.get(file.id));
}

/** A sign request, parsed: the manifest as the request gave it, and the request's own choices (null: not given). */
export interface SignatureRequest {
  uploadId: string;
  templateId: string | null;
  manifest: ManifestRequest;
  discoverable: boolean | null;
  softBinding: boolean | null;
  /** Where the manifest store goes; null: the template's choice, else embedded. */
  manifestPlacement?: ManifestPlacement | null;
  /** Sign as the person too (CAWG identity), with these roles; null: the organisation alone. */
  identity?: { roles: string[] } | null;
  idempotencyKey?: string;
}

/**
 * Queues an upload of the principal's organisation for signing. With an idempotency key, a repeated request (same
 * upload, template, manifest and choices) answers with the job it made (`created` false); the same key with another
 * request is a conflict. With a template, its defaults go under the request's manifest fields. A job that can only
 * fail (no certificate the organisation may sign with) is not recorded, nor one the queue did not take.
 */
export async function requestSignature(ctx: SignJobsContext, principal: Principal, request: SignatureRequest, log: Logger = ctx.logger): Promise<{ job: JobView; created: boolean }> {
  const { templateId, idempotencyKey } = request;
  const upload = await findUpload(ctx.knex, principal.orgId, request.uploadId);
  if (!upload) throw notFound('upload');
  // Soft bindings (ISCC image codes) are of images: anything else is signed with none, and the job says so (false)
  // whatever the request or template chose.
  const fingerprinted = formatFor(upload.mime_type)?.kind === 'image';
  const requestedSoftBinding = fingerprinted ? request.softBinding : null;

  const replay = async (): Promise<SignJob | undefined> => {
    if (idempotencyKey === undefined) return undefined;
    const existing = await findSignJobByIdempotencyKey(principal.orgId, idempotencyKey);
    // The request is compared, not the merged manifest: a replay after the template changed is the same request.
    const sameRequest =
      existing &&
      existing.upload_id === upload.id &&
      (existing.template_id ?? null) === templateId &&
      isDeepStrictEqual(existing.request_manifest ?? existing.manifest, request.manifest) &&
      existing.discoverable === (request.discoverable ?? existing.discoverable) &&
      existing.soft_binding === (requestedSoftBinding ?? existing.soft_binding) &&
      existing.manifest_placement === (request.manifestPlacement ?? existing.manifest_placement) &&
      // A request without identity signs with its template's, whatever that was then (as for soft_binding).
      isDeepStrictEqual(existing.identity_roles ?? null, request.identity?.roles ?? (existing.template_id ? (existing.identity_roles ?? null) : null));
    if (existing && !sameRequest) {
      throw conflict('this Idempotency-Key was used with a different request', 'idempotency_conflict');
    }
    return existing;
  };
  const previous = await replay();
  if (previous) return { job: await viewOf(ctx, previous), created: false };
  // Another organisation's template, or a deleted one, is not found.
  const template = templateId === null ? undefined : await liveTemplate(ctx.knex, principal.orgId, templateId);
  const manifest = mergeManifest(withDocumentTitle(request.manifest, upload), template?.manifest);
  const manifestPlacement = request.manifestPlacement ?? template?.manifest_placement ?? 'embedded';
  // A remote manifest the format cannot carry is refused now rather than as a failed job.
  if (manifestPlacement === 'remote') assertRemoteManifestSupported(upload.mime_type);
  // A job that can only fail is not queued: without a certificate the organisation may sign with (or one the
  // worker may issue for it), the caller hears so at once.
  const signing = await orgSigningState(ctx.knex, principal.orgId);
  if (signing.state === 'revoked' || signing.state === 'no_ca' || signing.state === 'external_unusable') {
    throw noCertificateError(signing);
  }
  // The request's identity, else the template's: the same checks either way.
  const identity = request.identity ?? template?.identity ?? null;
  const person = identity ? await signingPerson(ctx, principal, upload.mime_type, !request.identity) : null;
  let job: SignJob;
  try {
    job = await ctx.knex.transaction(async (trx) => {
      const inserted = await insertSignJob({
      org_id: principal.orgId,
      upload_id: upload.id,
      ...actorColumns(principal),
      idempotency_key: idempotencyKey ?? null,
      manifest,
      request_manifest: request.manifest,
      template_id: template?.id ?? null,
      template_version: template?.version ?? null,
      // The request's choice, else the template's; null follows the organisation's setting.
      discoverable: request.discoverable ?? template?.discoverable ?? null,
      soft_binding: fingerprinted ? (requestedSoftBinding ?? template?.soft_binding ?? null) : false,
      identity_user_id: person,
      identity_roles: identity ? identity.roles : null,
      manifest_placement: manifestPlacement,
    }, trx);
      await recordAuditEvent(trx, { action: 'sign.requested', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'sign_job', id: inserted.id }, details: { upload_id: upload.id, upload_sha256: upload.sha256, template_id: template?.id ?? null } });
      return inserted;
    });
  } catch (err) {
    // Two requests with one key at once: the loser answers with the winner's job.
    const winner = isUniqueViolation(err) ? await replay() : undefined;
    if (!winner) throw err;
    return { job: await viewOf(ctx, winner), created: false };
  }
  try {
    await ctx.signQueue.enqueue(job.id);
  } catch (err) {
    // Nothing half-done: without a queue entry the job would never run, so it is not kept.
    await ctx.knex.transaction(async (trx) => {
      await deleteSignJob(job.id, trx);
      await recordAuditEvent(trx, { action: 'sign.failed', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'sign_job', id: job.id }, outcome: 'failure', details: { error_code: 'queue_unavailable' } });
    });
    log.error({ err }, 'could not enqueue sign job');
    throw new ApiError('unavailable', 'queue_unavailable', 'the signing queue is unavailable; nothing was recorded, try again shortly', { retryAfterSeconds: 5 });
  }
  return { job: jobView(ctx.config.baseUrl, job, undefined), created: true };
}

/**
 * A document signed without a title in the request takes its own (read from its metadata at upload), else its file
 * name; other media must be given one (mergeManifest says so).
 */
function withDocumentTitle(manifest: ManifestRequest, upload: Pick<Upload, 'mime_type' | 'document_title' | 'filename'>): ManifestRequest {
  if (manifest.title !== undefined || formatFor(upload.mime_type)?.kind !== 'document') return manifest;
  const title = upload.document_title ?? cleanTitle(upload.filename);
  return title === undefined ? manifest : { ...manifest, title };
}

/**
 * The person a request to sign as a person names: the signed-in user, or the user the API key is bound to, who must
 * hold a valid identity certificate. Checked here so that a job that can only fail is not queued.
 */
async function signingPerson(ctx: Pick<SignJobsContext, 'knex'>, principal: Principal, mimeType: string, fromTemplate: boolean): Promise<string> {
  const userId = principal.userId;
  const without = fromTemplate ? 'with a template that has no identity setting' : 'without "identity"';
  if (!userId) {
    throw new ApiError('unprocessable', 'no_identity', `an API key has no person to sign as: an admin may create a key bound to a user (POST /org/api-keys with user_id), or sign ${without}`);
  }
  if (formatFor(mimeType)?.streamed) throw new ApiError('unprocessable', 'identity_not_supported', `${mimeType} files are signed streamed, without identity assertions: sign ${without}`);
  await personCertificateInForce(ctx.knex, principal.orgId, userId);
  return userId;
}

/**
 * One of the organisation's jobs (404 for any other). With `waitMs`, holds until the job leaves queued/processing or
 * the time is up; undefined when `signal` aborts the wait first (the caller left).
 */
export async function getSignJob(
  ctx: Pick<SignJobsContext, 'knex' | 'config' | 'jobEvents'>,
  orgId: string,
  jobId: string,
  options: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<JobView | undefined> {
  const deadline = Date.now() + (options.waitMs ?? 0);
  const { signal } = options;
  let job: SignJob | undefined;
  for (;;) {
    // Listen before reading, so a change between the read and the wait is not missed.
    const waiter = ctx.jobEvents.waitForChange(jobId, Math.max(0, deadline - Date.now()));
    job = await findOrgSignJob(orgId, jobId);
    if (!job) {
      waiter.cancel();
      throw notFound('job');
    }
    if (!PENDING_STATUSES.includes(job.status) || Date.now() >= deadline) {
      waiter.cancel();
      break;
    }
    const left = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([waiter.changed, left]);
    waiter.cancel();
    if (signal?.aborted) return undefined;
  }
  return viewOf(ctx, job);
}

/** A page of the organisation's jobs, newest first, optionally in one status; each with its file and anchor. */
export async function listSignJobs(ctx: Pick<SignJobsContext, 'knex' | 'config'>, orgId: string, page: PageRequest, status?: JobStatus): Promise<{ jobs: JobView[]; next_cursor: string | null }> {
  const { items, next_cursor } = pageResult(await listOrgSignJobs(orgId, page, status), page);
  const files = await signedFilesOfJobs(orgId, items.map((j) => j.id));
  const byJob = new Map(files.map((f) => [f.job_id, f]));
  const anchors = await anchorViewsForFiles(ctx.knex, ctx.config.baseUrl, files.map((f) => f.id));
  const renditions = renditionsOf(await renditionPartCounts(orgId, 'signed_file_id', files.map((f) => f.id), ctx.knex));
  const view = (j: SignJob) => {
    const file = byJob.get(j.id);
    return jobView(ctx.config.baseUrl, j, file, file && anchors.get(file.id), file && renditions.get(file.id));
  };
  return { jobs: items.map(view), next_cursor };
}

export interface OpenedSignedFile {
  filename: string;
  mimeType: string;
  size: number;
  etag: string;
  /** The `Link` header naming where the public repository serves the file's manifest store, when it does (remote or discoverable). */
  manifestLink: string | undefined;
  stream: Readable;
}

/**
 * One of the organisation's signed files (404 for any other), opened for reading from the file store; a signed
 * rendition as the zip of its parts (application/zip, streamed part by part).
 */
export async function openSignedFile(ctx: Pick<SignJobsContext, 'files' | 'config' | 'knex'>, orgId: string, fileId: string): Promise<OpenedSignedFile> {
  const file = await findOrgSignedFile(orgId, fileId);
  if (!file) throw notFound('file');
  const manifestLink = await c2paManifestLink(ctx, { id: file.id });
  const parts = await renditionParts(orgId, { signed_file_id: file.id }, ctx.knex);
  if (parts.length) {
    const zip = renditionZip(ctx.files, parts, file.created_at);
    return { filename: file.filename, mimeType: 'application/zip', size: zip.size, etag: `W/"${file.sha256}"`, manifestLink, stream: zip.stream };
  }
  const { stream } = await ctx.files.openRead(file.storage_key);
  return { filename: file.filename, mimeType: file.mime_type, size: Number(file.size), etag: `"${file.sha256}"`, manifestLink, stream };
}
