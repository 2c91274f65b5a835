import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import type { AppContext } from '../context.js';
import { receiveFile, stagingLimit } from '../media/multipart-file.js';
import { principalOf } from '../auth/principal.js';
import { verifyMedia } from '../services/verification.js';

export function verifyRouter(ctx: AppContext): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/media/verify:
   *   post:
   *     tags: [Media]
   *     summary: Validate a file's C2PA manifest against the service's root CA and report the signer's revocation status and on-chain anchor
   *     description: Takes a video or audio file up to its kind's upload limit (MAX_UPLOAD_BYTES_VIDEO, MAX_UPLOAD_BYTES_AUDIO; images MAX_UPLOAD_BYTES); c2pa-rs reads every file in the verification pool (VERIFY_POOL_SIZE processes of its own, VERIFY_QUEUE_LIMIT more waiting, then 503 verification_busy with Retry-After), one larger than MAX_UPLOAD_BYTES from disk rather than whole. An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large. A file without a manifest is a 200 with validation_state "none" and, in recovered, the manifests recovered by its fingerprint (as POST /v1/verify, plus the organisation's own non-discoverable files). The file is not kept. For a file the service anchored, anchor.chain reports whether the file's proof recomputes to a root that is the input of the named transaction, read from the chain (not from the service's database).
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     requestBody:
   *       required: true
   *       content:
   *         multipart/form-data:
   *           schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } }
   *     responses:
   *       200: { description: The verdict, content: { application/json: { schema: { $ref: '#/components/schemas/PublicVerification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       422: { $ref: '#/components/responses/UnreadableCredentials' }
   *       503: { $ref: '#/components/responses/VerificationBusy' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   */
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
