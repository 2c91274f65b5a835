import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import type { AppContext } from '../context.js';
import { receiveFile, stagingLimit } from '../media/multipart-file.js';
import { principalOf } from '../auth/principal.js';
import { verifyMedia } from '../services/verification.js';

export function verifyRouter(ctx: AppContext): Router {
  const router = Router();

  router.post('/verify', authenticate(ctx.passport), requirePermission('media:verify'), async (req, res) => {
    // What a caller may sign, it may verify: video and audio up to their own limits (MAX_UPLOAD_BYTES_VIDEO/_AUDIO,
    // checked by verifyMedia once it knows the type).
    const { staged } = await receiveFile(req, ctx.staging, stagingLimit(ctx.config));
    try {
      // Signed in: recovery also finds the organisation's own non-discoverable files.
      res.json(await verifyMedia(ctx, staged, principalOf(req).orgId));
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  return router;
}
