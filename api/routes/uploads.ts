import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { receiveFile, stagingLimit } from '../media/multipart-file.js';
import { pageRequest } from '../pagination.js';
import { listUploads, storeUpload } from '../services/uploads.js';

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  /**
   * @openapi
   * /v1/media/upload:
   *   post:
   *     tags: [Media]
   *     summary: Upload an image, video or audio file to sign (recognised by content, not by name)
   *     description: "Accepted formats (shared/media/formats.ts): JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF, HEIC, HEIF, JPEG XL (container) and SVG images; MP4, M4V, MOV and AVI video; M4A, MP3, WAV and FLAC audio. The content decides the format (magic numbers and a walk over the file's structure), never the name or the declared type: other content is 415, an empty, damaged or truncated file 400. An image declaring more than MAX_IMAGE_PIXELS pixels (width x height from its header; an SVG's declared size) is 422 image_too_large; a JPEG, PNG, WebP, GIF, TIFF or AVIF image whose pixel data is missing or cut short is 400 corrupt_image (it is decoded, in the verification pool: 503 verification_busy when that is full)."
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     requestBody:
   *       required: true
   *       content:
   *         multipart/form-data:
   *           schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } }
   *     responses:
   *       201: { description: Stored, content: { application/json: { schema: { $ref: '#/components/schemas/Upload' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   *       422: { $ref: '#/components/responses/ImageTooLarge' }
   *       503: { $ref: '#/components/responses/VerificationBusy' }
   */
  router.post('/upload', auth, requirePermission('media:upload'), async (req, res) => {
    const principal = principalOf(req);
    const { staged, filename } = await receiveFile(req, ctx.staging, stagingLimit(ctx.config));
    res.status(201).json(await storeUpload(ctx, principal, staged, filename));
  });

  /**
   * @openapi
   * /v1/media/uploads:
   *   get:
   *     tags: [Media]
   *     summary: The organisation's uploads, newest first
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - $ref: '#/components/parameters/Limit'
   *       - $ref: '#/components/parameters/Cursor'
   *     responses:
   *       200: { description: A page of uploads, content: { application/json: { schema: { type: object, properties: { uploads: { type: array, items: { $ref: '#/components/schemas/Upload' } }, next_cursor: { type: string, nullable: true } } } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   */
  router.get('/uploads', auth, requirePermission('media:read'), async (req, res) => {
    const page = pageRequest(req.query);
    res.json(await listUploads(ctx.knex, principalOf(req).orgId, page));
  });

  return router;
}
