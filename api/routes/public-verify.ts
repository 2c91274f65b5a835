import { Router } from 'express';
import type { AppContext } from '../context.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import type { RateLimiters } from '../rate-limit.js';
import { VerificationParams } from '../schemas/verify.js';
import { publicVerification, verifyPublicly } from '../services/verification.js';
import { parseParams } from '../validation.js';

export function publicVerifyRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

  router.post('/verify', limits.publicApi, limits.publicConcurrency, async (req, res) => {
    const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      const result = await verifyPublicly(ctx, staged);
      res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${staged.sha256}` });
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  router.get('/verify/:sha256', limits.publicApi, async (req, res) => {
    const { sha256 } = parseParams(VerificationParams, req.params);
    const result = await publicVerification(ctx, sha256);
    res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${sha256}` });
  });

  return router;
}
