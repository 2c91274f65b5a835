import { Router } from 'express';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { anchorProof } from '../services/anchors.js';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The public proof endpoint: anyone holding a signed file (or its SHA-256) gets its anchor proof without an account,
 * and checks it against the chain with ethers and SHA-256 alone (README; bin/verify-anchor.ts). It reveals nothing
 * but the proof: not the organisation, job or file name. Knowing that a hash was anchored requires knowing the
 * hash, i.e. holding the file. Browsers on other origins may read it (CORS).
 */
export function anchorsRouter(ctx: AppContext): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/media/anchors/{sha256}:
   *   get:
   *     tags: [Media]
   *     summary: Public anchor proof of a signed file, by the SHA-256 of its bytes (no credentials needed)
   *     description: |
   *       status pending (waiting in the pending batch), anchoring (batch sealed, transaction on its way) or anchored (proof complete).
   *       Check an anchored proof without the service - leaf = sha256(0x00 || file_sha256); for each path step
   *       h = sha256(0x01 || hash || h) when side is left, sha256(0x01 || h || hash) when right; h must equal root; the transaction
   *       transaction_hash on chain chain_id must be mined in block block_number with input 0x6d73736101 || root.
   *     parameters:
   *       - { name: sha256, in: path, required: true, schema: { type: string, pattern: '^[0-9a-fA-F]{64}$' } }
   *     responses:
   *       200: { description: The file's anchor, content: { application/json: { schema: { $ref: '#/components/schemas/AnchorLookup' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       404: { description: The service never signed a file with this SHA-256, content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } } }
   */
  router.get('/anchors/:sha256', async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    const raw = req.params.sha256;
    if (typeof raw !== 'string' || !SHA256_HEX.test(raw)) throw badRequest('sha256 must be 64 hex digits: the SHA-256 of the signed file', 'invalid_parameter');
    const sha256 = raw.toLowerCase();
    const view = await anchorProof(ctx, sha256);
    // An anchored proof changes only if a later batch is confirmed earlier on chain (never in practice); others move on.
    res.setHeader('Cache-Control', view.status === 'anchored' ? 'public, max-age=300' : 'no-store');
    res.json({ sha256, ...view });
  });

  return router;
}
