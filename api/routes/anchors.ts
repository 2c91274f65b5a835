import { Router } from 'express';
import type { AppContext } from '../context.js';
import { AnchorParams } from '../schemas/anchors.js';
import { anchorProof } from '../services/anchors.js';
import { parseParams } from '../validation.js';

/**
 * The public proof endpoint: anyone holding a signed file (or its SHA-256) gets its anchor proof without an account,
 * and checks it against the chain with ethers and SHA-256 alone (README; bin/verify-anchor.ts). It reveals nothing
 * but the proof: not the organisation, job or file name. Knowing that a hash was anchored requires knowing the
 * hash, i.e. holding the file. Browsers on other origins may read it (CORS).
 */
export function anchorsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/anchors/:sha256', async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    const { sha256 } = parseParams(AnchorParams, req.params);
    const view = await anchorProof(ctx, sha256);
    // An anchored proof changes only if a later batch is confirmed earlier on chain (never in practice); others move on.
    res.setHeader('Cache-Control', view.status === 'anchored' ? 'public, max-age=300' : 'no-store');
    res.json({ sha256, ...view });
  });

  return router;
}
