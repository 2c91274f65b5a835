import { Router } from 'express';
import { assertCreatorGiven } from '../../shared/c2pa/parse-manifest.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { FileParams, JobParams, JobQuery, JobsQuery, SignHeaders, SignInput } from '../schemas/sign-jobs.js';
import { getSignJob, listSignJobs, openSignedFile, requestSignature } from '../services/sign-jobs.js';
import { parseBody, parseParams } from '../validation.js';

export function signJobsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/sign', auth, requirePermission('media:sign'), async (req, res) => {
    const principal = principalOf(req);
    const body = parseBody(SignInput, req.body);
    const { discoverable: requestedDiscoverable, soft_binding: requestedSoftBinding, template_id: templateId, manifest: requested } = body;
    // Without a template the request must name its creator: say so before anything else (a document's title may
    // still come from the document, which requestSignature looks at).
    if (templateId === null) assertCreatorGiven(requested);
    const { 'Idempotency-Key': idempotencyKey } = parseParams(SignHeaders, { 'Idempotency-Key': req.get('idempotency-key') });
    const { job, created } = await requestSignature(
      ctx,
      principal,
      {
        uploadId: body.upload_id,
        templateId,
        manifest: requested,
        discoverable: requestedDiscoverable,
        softBinding: requestedSoftBinding,
        manifestPlacement: body.manifest_placement,
        identity: body.identity,
        idempotencyKey,
      },
      req.log,
    );
    if (created) res.location(`/v1/media/jobs/${job.job_id}`);
    res.status(202).json(job);
  });

  router.get('/jobs', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { page, status } = parseParams(JobsQuery, req.query);
    res.json(await listSignJobs(ctx, orgId, page, status));
  });

  router.get('/jobs/:job_id', auth, requirePermission('media:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { job_id: jobId } = parseParams(JobParams, req.params);
    const waitMs = parseParams(JobQuery, req.query).wait * 1000;
    // The response's close (not the request's, which fires once the body is read) means the client left.
    const left = new AbortController();
    res.once('close', () => left.abort());
    const job = await getSignJob(ctx, orgId, jobId, { waitMs, signal: left.signal });
    if (!job) return;
    res.json(job);
  });

  router.get('/files/:file_id', auth, requirePermission('media:read'), async (req, res) => {
    const { file_id: fileId } = parseParams(FileParams, req.params);
    const { stream, ...file } = await openSignedFile(ctx, principalOf(req).orgId, fileId);
    res.setHeader('Content-Type', file.mimeType);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename.replace(/[^\x20-\x7e]|"/g, '_')}"`);
    res.setHeader('ETag', file.etag);
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    if (file.manifestLink) res.setHeader('Link', file.manifestLink);
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
