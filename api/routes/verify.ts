import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { clientSignal } from '../client-signal.js';
import type { AppContext } from '../context.js';
import { receiveFile, stagingLimit } from '../media/multipart-file.js';
import { principalOf } from '../auth/principal.js';
import { VerifyQuery } from '../schemas/verify.js';
import { crJsonReport, verifyMedia } from '../services/verification.js';
import { clientAddress } from '../rate-limit.js';
import { parseParams } from '../validation.js';

export function verifyRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/verify', authenticate(ctx.passport), requirePermission('media:verify'), async (req, res) => {
    const signal = clientSignal(res);
    const { format } = parseParams(VerifyQuery, req.query);
    // What a caller may sign, it may verify: video and audio up to their own limits (MAX_UPLOAD_BYTES_VIDEO/_AUDIO,
    // checked by verifyMedia once it knows the type). A sidecar manifest store may come with the file (`manifest`).
    const { staged, optional: manifest } = await receiveFile(req, ctx.staging, stagingLimit(ctx.config), { optionalPart: 'manifest' });
    const readers = { ...ctx, remoteManifests: ctx.remoteManifests.forClient(clientAddress(req)) };
    try {
      const asker = { ownOrgId: principalOf(req).orgId, signal };
      if (format === 'crjson') res.type('application/json').send(await crJsonReport(readers, { staged, manifest }, asker));
      // Signed in: recovery also finds the organisation's own non-discoverable files.
      else res.json(await verifyMedia(readers, { staged, manifest }, asker));
    } finally {
      await Promise.all([ctx.staging.discard(staged), manifest && ctx.staging.discard(manifest)]);
    }
  });

  return router;
}
