import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { Upload } from '../../shared/db/models/upload.js';
import { identifyImage, ImageRejectedError } from '../../shared/media/image-structure.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf, type Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { receiveFile } from '../media/multipart-file.js';
import { applyPage, pageRequest, pageResult } from '../pagination.js';

export const EXTENSION: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png' };

/** The API's answer to a file that is not an acceptable JPEG or PNG. */
export function imageRejection(err: ImageRejectedError): ApiError {
  if (err.reason === 'unsupported') return new ApiError(415, 'unsupported_media_type', err.message);
  if (err.reason === 'empty') return badRequest(err.message, 'empty_file');
  return badRequest(err.message, 'corrupt_image');
}

export function actorColumns(p: Principal): { user_id: string | null; api_key_id: string | null } {
  return p.kind === 'user' ? { user_id: p.userId, api_key_id: null } : { user_id: null, api_key_id: p.apiKeyId };
}

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  /**
   * @openapi
   * /v1/media/upload:
   *   post:
   *     tags: [Media]
   *     summary: Upload a JPEG or PNG image (recognised by content, not by name)
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
   */
  router.post('/upload', auth, requirePermission('media:upload'), async (req, res) => {
    const principal = principalOf(req);
    const { staged, filename } = await receiveFile(req, ctx.staging, ctx.config.maxUploadBytes);
    const id = randomUUID();
    let storageKey: string;
    let mimeType;
    try {
      try {
        mimeType = await identifyImage(staged.tempPath);
      } catch (err) {
        throw err instanceof ImageRejectedError ? imageRejection(err) : err;
      }
      // Only a checked file reaches the store, streamed from the staged copy.
      storageKey = `uploads/${principal.orgId}/${id}.${EXTENSION[mimeType]}`;
      await ctx.files.putFile(storageKey, staged.tempPath);
    } finally {
      await ctx.staging.discard(staged);
    }
    try {
      const upload = await Upload.query()
        .insert({ id, org_id: principal.orgId, ...actorColumns(principal), filename, mime_type: mimeType, size: staged.size, sha256: staged.sha256, storage_key: storageKey })
        .returning('*');
      res.status(201).json(upload.toPublic());
    } catch (err) {
      await ctx.files.remove(storageKey);
      throw err;
    }
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
    const rows = await applyPage(Upload.query().where({ org_id: principalOf(req).orgId }), page);
    const { items, next_cursor } = pageResult(rows, page);
    res.json({ uploads: items.map((u) => u.toPublic()), next_cursor });
  });

  return router;
}
