import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { mergeManifest, ManifestInputError } from '../../shared/c2pa/manifest-definition.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { anchorViewsForFiles } from '../../shared/anchoring/views.js';
import { PENDING_STATUSES, SIGNED_STATUSES, SignJob } from '../../shared/db/models/sign-job.js';
import { SignedFile } from '../../shared/db/models/signed-file.js';
import { noCertificateError, orgSigningState } from '../../shared/pki/org-signing.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, conflict, notFound } from '../errors.js';
import { jobView } from '../media/job-view.js';
import { applyPage } from '../../shared/db/page.js';
import { pageResult } from '../pagination.js';
import { FileParams, JobParams, JobQuery, JobsQuery, SignHeaders, SignInput } from '../schemas/sign-jobs.js';
import { parseBody, parseParams } from '../validation.js';
import { liveTemplate } from '../services/manifest-templates.js';
import { actorColumns, findUpload } from '../services/uploads.js';

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

export function signJobsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/sign', auth, requirePermission('media:sign'), async (req, res) => {
    const principal = principalOf(req);
    const body = parseBody(SignInput, req.body);
    const { discoverable: requestedDiscoverable, soft_binding: requestedSoftBinding, template_id: templateId, manifest: requested } = body;
    // Without a template the request must be complete: say so before anything else.
    if (templateId === null) manifestFields(() => mergeManifest(requested));
    const { 'Idempotency-Key': idempotencyKey } = parseParams(SignHeaders, { 'Idempotency-Key': req.get('idempotency-key') });
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

  router.get('/jobs', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { page, status } = parseParams(JobsQuery, req.query);
    const query = SignJob.query().where({ org_id: orgId });
    if (status !== undefined) query.where({ status });
    const { items, next_cursor } = pageResult(await applyPage(query, page), page);
    const files = await SignedFile.query().whereIn('job_id', items.map((j) => j.id)).where({ org_id: orgId });
    const byJob = new Map(files.map((f) => [f.job_id, f]));
    const anchors = await anchorViewsForFiles(ctx.knex, ctx.config.baseUrl, files.map((f) => f.id));
    res.json({ jobs: items.map((j) => jobView(ctx.config.baseUrl, j, byJob.get(j.id), anchors.get(byJob.get(j.id)?.id ?? ''))), next_cursor });
  });

  router.get('/jobs/:job_id', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { job_id: jobId } = parseParams(JobParams, req.params);
    const deadline = Date.now() + parseParams(JobQuery, req.query).wait * 1000;
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

  router.get('/files/:file_id', auth, requirePermission('media:read'), async (req, res) => {
    const { file_id: fileId } = parseParams(FileParams, req.params);
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
