import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { mergeManifest, parseManifestRequest, ManifestInputError } from '../../shared/c2pa/parse-manifest.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { anchorViewsForFiles } from '../../shared/anchoring/views.js';
import { JOB_STATUSES, PENDING_STATUSES, SIGNED_STATUSES, SignJob, type JobStatus } from '../../shared/db/models/sign-job.js';
import { SignedFile } from '../../shared/db/models/signed-file.js';
import { noCertificateError, orgSigningState } from '../../shared/pki/org-signing.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, conflict, discoverableField, notFound, uuidParam } from '../errors.js';
import { jobView } from '../media/job-view.js';
import { applyPage } from '../../shared/db/page.js';
import { pageRequest, pageResult } from '../pagination.js';
import { choiceOrOrgSetting } from '../validation.js';
import { liveTemplate } from '../services/manifest-templates.js';
import { actorColumns, findUpload } from '../services/uploads.js';

/** Longest `?wait=` a client may ask for (issue: N <= 30 seconds). */
export const MAX_WAIT_SECONDS = 30;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

async function loadFile(job: SignJob): Promise<SignedFile | undefined> {
  return SIGNED_STATUSES.includes(job.status) ? SignedFile.query().findOne({ job_id: job.id }) : undefined;
}

/** A job's public view with its signed file and that file's anchor. */
async function viewOf(ctx: AppContext, job: SignJob) {
  const file = await loadFile(job);
  const anchors = file ? await anchorViewsForFiles(ctx.knex, ctx.config.baseUrl, [file.id]) : undefined;
  return jobView(ctx.config.baseUrl, job, file, file && anchors?.get(file.id));
}

/** Runs a manifest parse; its ManifestInputError (naming the field) becomes a 400. */
function manifestFields<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ManifestInputError) throw badRequest(err.message);
    throw err;
  }
}

function templateIdOf(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  return uuidParam(raw, 'template_id');
}

function waitSeconds(raw: unknown): number {
  if (raw === undefined) return 0;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) > MAX_WAIT_SECONDS) {
    throw badRequest(`wait must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`, 'invalid_parameter');
  }
  return Number(raw);
}

export function signJobsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  /**
   * @openapi
   * /v1/media/sign:
   *   post:
   *     tags: [Media]
   *     summary: Queue an upload for C2PA signing; answers 202 at once with the job
   *     description: Repeating a request with the same Idempotency-Key (same upload_id, template_id and manifest) returns the same job. With template_id, the organisation's manifest template gives the defaults and the request's manifest fields replace the template's (title is always required; creator only when the template gives none); the job records the template version and the merged manifest it applies.
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: Idempotency-Key, in: header, required: false, schema: { type: string, maxLength: 200 } }
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { $ref: '#/components/schemas/SignInput' } } }
   *     responses:
   *       202: { description: Queued (or the existing job for this Idempotency-Key), content: { application/json: { schema: { $ref: '#/components/schemas/Job' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       409: { $ref: '#/components/responses/Conflict' }
   *       503: { description: 'Nothing was recorded: no_signing_certificate (no valid signing certificate; an operator must issue one) or queue_unavailable (retry later); both with Retry-After', content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } } }
   */
  router.post('/sign', auth, requirePermission('media:sign'), async (req, res) => {
    const principal = principalOf(req);
    const body = (req.body ?? {}) as { upload_id?: unknown; manifest?: unknown; template_id?: unknown; discoverable?: unknown; soft_binding?: unknown };
    const requestedDiscoverable = discoverableField(body.discoverable);
    const requestedSoftBinding = choiceOrOrgSetting('soft_binding', body.soft_binding);
    if (body.upload_id === undefined) throw badRequest('upload_id is required');
    if (typeof body.upload_id !== 'string') throw badRequest('upload_id must be a string');
    if (body.manifest === undefined) throw badRequest('manifest is required (an object with title, and creator unless the template gives one)');
    const templateId = templateIdOf(body.template_id);
    const requested = manifestFields(() => parseManifestRequest(body.manifest));
    // Without a template the request must be complete: say so before anything else.
    if (templateId === null) manifestFields(() => mergeManifest(requested));
    const idempotencyKey = req.get('idempotency-key');
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1-200 visible ASCII characters', 'invalid_parameter');
    }
    const upload = await findUpload(ctx.knex, principal.orgId, body.upload_id);
    if (!upload) throw notFound('upload');

    const replay = async (): Promise<SignJob | undefined> => {
      if (idempotencyKey === undefined) return undefined;
      const existing = await SignJob.query().findOne({ org_id: principal.orgId, idempotency_key: idempotencyKey });
      // The request is compared, not the merged manifest: a replay after the template changed is the same request.
      const sameRequest = existing && existing.upload_id === upload.id && (existing.template_id ?? null) === templateId && isDeepStrictEqual(existing.request_manifest ?? existing.manifest, requested) && (existing.discoverable === (requestedDiscoverable ?? existing.discoverable)) && (existing.soft_binding === (requestedSoftBinding ?? existing.soft_binding));
      if (existing && !sameRequest) {
        throw conflict('this Idempotency-Key was used with a different request', 'idempotency_conflict');
      }
      return existing;
    };
    const previous = await replay();
    if (previous) {
      res.status(202).json(await viewOf(ctx, previous));
      return;
    }
    // Another organisation's template, or a deleted one, is not found.
    const template = templateId === null ? undefined : await liveTemplate(ctx.knex, principal.orgId, templateId);
    const manifest = manifestFields(() => mergeManifest(requested, template?.manifest));
    const templateColumns = {
      template_id: template?.id ?? null,
      template_version: template?.version ?? null,
      request_manifest: requested,
      // The request's choice, else the template's; null follows the organisation's setting.
      discoverable: requestedDiscoverable ?? template?.discoverable ?? null,
      soft_binding: requestedSoftBinding ?? template?.soft_binding ?? null,
    };
    // A job that can only fail is not queued: without a certificate the organisation may sign with (or one the
    // worker may issue for it), the caller hears so at once.
    const signing = await orgSigningState(ctx.knex, principal.orgId);
    if (signing.state === 'revoked' || signing.state === 'no_ca') {
      throw new ApiError(503, 'no_signing_certificate', noCertificateError(signing).message, { 'Retry-After': '60' });
    }
    let job: SignJob;
    try {
      job = await SignJob.query()
        .insert({ id: randomUUID(), org_id: principal.orgId, upload_id: upload.id, ...actorColumns(principal), idempotency_key: idempotencyKey ?? null, manifest, ...templateColumns, status: 'queued' })
        .returning('*');
    } catch (err) {
      // Two requests with one key at once: the loser answers with the winner's job.
      const winner = isUniqueViolation(err) ? await replay() : undefined;
      if (!winner) throw err;
      res.status(202).json(await viewOf(ctx, winner));
      return;
    }
    try {
      await ctx.signQueue.enqueue(job.id);
    } catch (err) {
      // Nothing half-done: without a queue entry the job would never run, so it is not kept.
      await SignJob.query().deleteById(job.id);
      req.log.error({ err }, 'could not enqueue sign job');
      throw new ApiError(503, 'queue_unavailable', 'the signing queue is unavailable; nothing was recorded, try again shortly', { 'Retry-After': '5' });
    }
    res.status(202).location(`/v1/media/jobs/${job.id}`).json(jobView(ctx.config.baseUrl, job, undefined));
  });

  /**
   * @openapi
   * /v1/media/jobs:
   *   get:
   *     tags: [Media]
   *     summary: The organisation's sign jobs, newest first
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: status, in: query, required: false, schema: { type: string, enum: [queued, processing, signed, anchoring, anchored, failed] } }
   *       - $ref: '#/components/parameters/Limit'
   *       - $ref: '#/components/parameters/Cursor'
   *     responses:
   *       200: { description: A page of jobs, content: { application/json: { schema: { type: object, properties: { jobs: { type: array, items: { $ref: '#/components/schemas/Job' } }, next_cursor: { type: string, nullable: true } } } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   */
  router.get('/jobs', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const page = pageRequest(req.query);
    const status = req.query.status;
    const query = SignJob.query().where({ org_id: orgId });
    if (status !== undefined) {
      if (typeof status !== 'string' || !(JOB_STATUSES as readonly string[]).includes(status)) {
        throw badRequest(`status must be one of ${JOB_STATUSES.join(', ')}`, 'invalid_parameter');
      }
      query.where({ status: status as JobStatus });
    }
    const { items, next_cursor } = pageResult(await applyPage(query, page), page);
    const files = await SignedFile.query().whereIn('job_id', items.map((j) => j.id)).where({ org_id: orgId });
    const byJob = new Map(files.map((f) => [f.job_id, f]));
    const anchors = await anchorViewsForFiles(ctx.knex, ctx.config.baseUrl, files.map((f) => f.id));
    res.json({ jobs: items.map((j) => jobView(ctx.config.baseUrl, j, byJob.get(j.id), anchors.get(byJob.get(j.id)?.id ?? ''))), next_cursor });
  });

  /**
   * @openapi
   * /v1/media/jobs/{job_id}:
   *   get:
   *     tags: [Media]
   *     summary: A sign job's status; with ?wait=N holds the request until the job leaves queued/processing or N seconds pass
   *     description: ?wait= returns once the file is signed; it does not wait for anchoring (status signed -> anchoring -> anchored), which follows within about ANCHOR_BATCH_MAX_AGE_MS plus the confirmations. The anchor object carries the proof once anchored.
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: job_id, in: path, required: true, schema: { type: string, format: uuid } }
   *       - { name: wait, in: query, required: false, schema: { type: integer, minimum: 0, maximum: 30 } }
   *     responses:
   *       200: { description: The job, content: { application/json: { schema: { $ref: '#/components/schemas/Job' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       404: { $ref: '#/components/responses/NotFound' }
   */
  router.get('/jobs/:job_id', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const jobId = uuidParam(req.params.job_id, 'job_id');
    const deadline = Date.now() + waitSeconds(req.query.wait) * 1000;
    let job: SignJob | undefined;
    for (;;) {
      // Listen before reading, so a change between the read and the wait is not missed.
      const waiter = ctx.jobEvents.waitForChange(jobId, Math.max(0, deadline - Date.now()));
      job = await SignJob.query().findOne({ id: jobId, org_id: orgId });
      if (!job) {
        waiter.cancel();
        throw notFound('job');
      }
      if (!PENDING_STATUSES.includes(job.status) || Date.now() >= deadline) {
        waiter.cancel();
        break;
      }
      // The response's close (not the request's, which fires once the body is read) means the client left.
      const left = new Promise<void>((resolve) => res.once('close', () => resolve()));
      await Promise.race([waiter.changed, left]);
      waiter.cancel();
      if (res.destroyed) return;
    }
    res.json(await viewOf(ctx, job));
  });

  /**
   * @openapi
   * /v1/media/files/{file_id}:
   *   get:
   *     tags: [Media]
   *     summary: Download a signed file
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: file_id, in: path, required: true, schema: { type: string, format: uuid } }
   *     responses:
   *       200: { description: 'The signed file, in its own media type (image, video or audio; Content-Type as stored)', content: { application/octet-stream: { schema: { type: string, format: binary } }, image/*: { schema: { type: string, format: binary } }, video/*: { schema: { type: string, format: binary } }, audio/*: { schema: { type: string, format: binary } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       404: { $ref: '#/components/responses/NotFound' }
   */
  router.get('/files/:file_id', auth, requirePermission('media:read'), async (req, res) => {
    const fileId = uuidParam(req.params.file_id, 'file_id');
    const file = await SignedFile.query().findOne({ id: fileId, org_id: principalOf(req).orgId });
    if (!file) throw notFound('file');
    const { stream } = await ctx.files.openRead(file.storage_key);
    res.setHeader('Content-Type', file.mime_type);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename.replace(/[^\x20-\x7e]|"/g, '_')}"`);
    res.setHeader('ETag', `"${file.sha256}"`);
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    stream.on('error', (err) => {
      // Headers are out: all that can be done is to cut the response short, so the client sees a failed download.
      req.log.error({ err }, 'reading a signed file from storage failed');
      res.destroy();
    });
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  });

  return router;
}
