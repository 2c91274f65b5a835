import { Router } from 'express';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import type { RateLimiters } from '../rate-limit.js';
import { publicVerification, verifyPublicly } from '../services/verification.js';

const SHA256 = /^[0-9a-f]{64}$/;

export function publicVerifyRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/verify:
   *   post:
   *     tags: [Public verification]
   *     summary: "Verify any image without an account: its embedded Content Credentials, or the ones recovered by its fingerprint"
   *     description: "For a file with an embedded manifest: what POST /v1/media/verify answers (c2pa-rs verdict against the service's roots, signer, revocation, on-chain anchor). For a file without one: `recovered`, the manifests of discoverable signed files whose ISCC Image-Code (io.iscc.v0) is within 12 bits of the file's, nearest first, each with its manifest, signer, anchor and Hamming distance, marked recovered_by fingerprint and bound_to_file false: they are not bound to these bytes. The result is kept by the file's SHA-256 for its permalink (GET /v1/verify/{sha256}); nothing else about the file is kept. The file is read, decoded and fingerprinted in the verification pool (503 verification_busy with Retry-After when it is full); an image declaring more than MAX_IMAGE_PIXELS pixels is refused from its header (422 image_too_large). Rate limited per client (PUBLIC_RATE_LIMIT per minute, and PUBLIC_CONCURRENCY_PER_ADDRESS requests in flight: 429 too_many_concurrent_requests)."
   *     requestBody:
   *       required: true
   *       content:
   *         multipart/form-data: { schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } } }
   *         image/*: { schema: { type: string, format: binary } }
   *     responses:
   *       200: { description: The verdict, content: { application/json: { schema: { $ref: '#/components/schemas/PublicVerification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       422: { $ref: '#/components/responses/UnreadableCredentials' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   *       503: { $ref: '#/components/responses/VerificationBusy' }
   */
  router.post('/verify', limits.publicApi, limits.publicConcurrency, async (req, res) => {
    const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      const result = await verifyPublicly(ctx, staged);
      res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${staged.sha256}` });
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  /**
   * @openapi
   * /v1/verify/{sha256}:
   *   get:
   *     tags: [Public verification]
   *     summary: "The last public verification of a file, by its SHA-256 (the permalink of the verify page)"
   *     description: "What POST /v1/verify answered for a file with this hash, and when (checked_at), brought up to date as it is read: recovered manifests are looked up again by the stored fingerprint (a file no longer discoverable is not shown), and the signer's revocation and the file's anchor are read again. Only files someone verified publicly are known here; a file the service signed for an organisation that has since made it non-discoverable is 404."
   *     parameters:
   *       - { name: sha256, in: path, required: true, schema: { type: string, pattern: '^[0-9a-f]{64}$' } }
   *     responses:
   *       200: { description: The stored verdict, content: { application/json: { schema: { $ref: '#/components/schemas/PublicVerification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.get('/verify/:sha256', limits.publicApi, async (req, res) => {
    const sha256 = String(req.params.sha256).toLowerCase();
    if (!SHA256.test(sha256)) throw badRequest('sha256 must be 64 hexadecimal digits', 'invalid_parameter');
    const result = await publicVerification(ctx, sha256);
    res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${sha256}` });
  });

  return router;
}
