import { readFile } from 'node:fs/promises';
import { Router } from 'express';
import { identifyImage, ImageRejectedError } from '../../shared/media/image-structure.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import type { AppContext } from '../context.js';
import { receiveFile } from '../media/multipart-file.js';
import { verifyFile } from '../media/verification.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { imageRejection } from './uploads.js';

export function verifyRouter(ctx: AppContext): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/media/verify:
   *   post:
   *     tags: [Media]
   *     summary: Validate a file's C2PA manifest against the service's root CA and report the signer's revocation status and on-chain anchor
   *     description: A file without a manifest is a 200 with validation_state "none". The file is not kept. For a file the service anchored, anchor.chain reports whether the file's proof recomputes to a root that is the input of the named transaction, read from the chain (not from the service's database).
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     requestBody:
   *       required: true
   *       content:
   *         multipart/form-data:
   *           schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } }
   *     responses:
   *       200: { description: The verdict, content: { application/json: { schema: { $ref: '#/components/schemas/Verification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   */
  router.post('/verify', authenticate(ctx.passport), requirePermission('media:verify'), async (req, res) => {
    const { staged } = await receiveFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      const mimeType = await identifyImage(staged.tempPath, { checkStructure: false });
      const bytes = new Uint8Array(await readFile(staged.tempPath));
      const [verdict, anchor] = await Promise.all([
        verifyFile(ctx.knex, bytes, mimeType, staged.sha256),
        verifyAnchor(ctx.knex, ctx.config.baseUrl, staged.sha256, chainReaderFor(ctx.config)),
      ]);
      res.json({ ...verdict, anchor });
    } catch (err) {
      throw err instanceof ImageRejectedError ? imageRejection(err) : err;
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  return router;
}
