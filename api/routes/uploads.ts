import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import { clientSignal } from '../client-signal.js';
import type { AppContext } from '../context.js';
import { receiveParts, stagingLimit } from '../media/multipart-file.js';
import { pageQuery } from '../schemas/common.js';
import { parseParams } from '../validation.js';
import { listUploads, storeUploadParts, uploadPartsSpec } from '../services/uploads.js';

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/upload', auth, requirePermission('media:upload'), async (req, res) => {
    const signal = clientSignal(res);
    const principal = principalOf(req);
    const parts = await receiveParts(req, ctx.staging, uploadPartsSpec(ctx.config, stagingLimit(ctx.config)));
    res.status(201).json(await storeUploadParts(ctx, principal, parts, signal));
  });

  router.get('/uploads', auth, requirePermission('media:read'), async (req, res) => {
    const page = parseParams(pageQuery, req.query);
    res.json(await listUploads(ctx.knex, principalOf(req).orgId, page));
  });

  return router;
}
