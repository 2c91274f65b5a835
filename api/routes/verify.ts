import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { clientSignal } from '../client-signal.js';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { fileOf, receiveParts, stagingLimit } from '../media/multipart-file.js';
import { principalOf } from '../auth/principal.js';
import { VerifyQuery } from '../schemas/verify.js';
import { isRenditionBody, verifyRendition } from '../services/rendition-verification.js';
import { crJsonReport, verifyMedia, verifyPartsSpec } from '../services/verification.js';
import { clientAddress } from '../rate-limit.js';
import { parseParams } from '../validation.js';

export function verifyRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/verify', authenticate(ctx.passport), requirePermission('media:verify'), async (req, res) => {
    const signal = clientSignal(res);
    const { format } = parseParams(VerifyQuery, req.query);
    // What a caller may sign, it may verify: video and audio up to their own limits (MAX_UPLOAD_BYTES_VIDEO/_AUDIO,
    // checked by verifyMedia once it knows the type). A sidecar manifest store may come with the file (`manifest`).
    // Or a fragmented MP4 rendition: one part `init` and its `fragment` parts in order, one verdict per segment.
    const parts = await receiveParts(req, ctx.staging, verifyPartsSpec(ctx.config, stagingLimit(ctx.config)));
    const asker = { ownOrgId: principalOf(req).orgId, signal };
    if (isRenditionBody(parts)) {
      try {
        if (format === 'crjson') throw badRequest('format=crjson reads a single file; a rendition is answered segment by segment (format=json)', 'crjson_not_for_renditions');
        res.json(await verifyRendition(ctx, parts, asker));
      } finally {
        await Promise.all(parts.map((p) => ctx.staging.discard(p.staged)));
      }
      return;
    }
    const { staged, optional: manifest } = await fileOf(parts, ctx.staging, 'manifest');
    const readers = { ...ctx, remoteManifests: ctx.remoteManifests.forClient(clientAddress(req)) };
    try {
      if (format === 'crjson') res.type('application/json').send(await crJsonReport(readers, { staged, manifest }, asker));
      // Signed in: recovery also finds the organisation's own non-discoverable files.
      else res.json(await verifyMedia(readers, { staged, manifest }, asker));
    } finally {
      await Promise.all([ctx.staging.discard(staged), manifest && ctx.staging.discard(manifest)]);
    }
  });

  return router;
}
