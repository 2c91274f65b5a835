import { Router } from 'express';
import { mergeManifest, parseManifestRequest } from '../../shared/c2pa/parse-manifest.js';
import { JOB_STATUSES, type JobStatus } from '../../shared/job-status.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { badRequest, discoverableField, uuidParam } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { getSignJob, listSignJobs, openSignedFile, requestSignature } from '../services/sign-jobs.js';
import { choiceOrOrgSetting } from '../validation.js';

/** Longest `?wait=` a client may ask for (issue: N <= 30 seconds). */
export const MAX_WAIT_SECONDS = 30;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

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
    const requested = parseManifestRequest(body.manifest);
    // Without a template the request must be complete: say so before anything else.
    if (templateId === null) mergeManifest(requested);
    const idempotencyKey = req.get('idempotency-key');
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1-200 visible ASCII characters', 'invalid_parameter');
    }
    const { job, created } = await requestSignature(
      ctx,
      principal,
      { uploadId: body.upload_id, templateId, manifest: requested, discoverable: requestedDiscoverable, softBinding: requestedSoftBinding, idempotencyKey },
      req.log,
    );
    if (created) res.location(`/v1/media/jobs/${job.job_id}`);
    res.status(202).json(job);
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
    let wanted: JobStatus | undefined;
    if (status !== undefined) {
      if (typeof status !== 'string' || !(JOB_STATUSES as readonly string[]).includes(status)) {
        throw badRequest(`status must be one of ${JOB_STATUSES.join(', ')}`, 'invalid_parameter');
      }
      wanted = status as JobStatus;
    }
    res.json(await listSignJobs(ctx, orgId, page, wanted));
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
    const waitMs = waitSeconds(req.query.wait) * 1000;
    // The response's close (not the request's, which fires once the body is read) means the client left.
    const left = new AbortController();
    res.once('close', () => left.abort());
    const job = await getSignJob(ctx, orgId, jobId, { waitMs, signal: left.signal });
    if (!job) return;
    res.json(job);
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
    const { stream, ...file } = await openSignedFile(ctx, principalOf(req).orgId, fileId);
    res.setHeader('Content-Type', file.mimeType);
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
