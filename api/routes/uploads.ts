import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { Upload } from '../../shared/db/models/upload.js';
import { extensionFor, identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf, type Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { assertWithinUploadLimit, receiveFile, stagingLimit } from '../media/multipart-file.js';
import { applyPage, pageResult } from '../pagination.js';
import { pageQuery } from '../schemas/common.js';
import { parseParams } from '../validation.js';

/**
 * The API's answer to a file that is not acceptable media: 415 for content of no supported format, 400 for an empty
 * file or a damaged one (corrupt_image for images, corrupt_media for video, audio and a damaged file whose format
 * cannot be told), 413 for an SVG over its bound, 422 image_too_large for an image declaring more than
 * MAX_IMAGE_PIXELS (the request is within the size limits; the image it describes is not).
 */
export function mediaRejection(err: MediaRejectedError): ApiError {
  if (err.reason === 'unsupported') return new ApiError(415, 'unsupported_media_type', err.message);
  if (err.reason === 'empty') return badRequest(err.message, 'empty_file');
  if (err.reason === 'too_large') return new ApiError(413, 'payload_too_large', err.message);
  if (err.reason === 'too_many_pixels') return new ApiError(422, 'image_too_large', err.message);
  return badRequest(err.message, err.mimeType?.startsWith('image/') ? 'corrupt_image' : 'corrupt_media');
}

export function actorColumns(p: Principal): { user_id: string | null; api_key_id: string | null } {
  return p.kind === 'user' ? { user_id: p.userId, api_key_id: null } : { user_id: null, api_key_id: p.apiKeyId };
}

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/upload', auth, requirePermission('media:upload'), async (req, res) => {
    const principal = principalOf(req);
    const { staged, filename } = await receiveFile(req, ctx.staging, stagingLimit(ctx.config));
    const id = randomUUID();
    let storageKey: string;
    let mimeType;
    try {
      let kind;
      try {
        ({ mimeType, kind } = await identifyMedia(staged.tempPath));
        // The limit of the kind it turned out to be (video, audio, image): 413, and the staged copy is discarded.
        assertWithinUploadLimit(ctx.config, mimeType, staged.size);
        // An image's pixels: within MAX_IMAGE_PIXELS (from its header) and all there (decoded), in the verification pool.
        if (kind === 'image') await ctx.verifyPool.run('check_image', { filePath: staged.tempPath, mimeType, maxPixels: ctx.config.maxImagePixels });
      } catch (err) {
        throw err instanceof MediaRejectedError ? mediaRejection(err) : err;
      }
      // Only a checked file reaches the store, streamed from the staged copy.
      storageKey = `uploads/${principal.orgId}/${id}.${extensionFor(mimeType)}`;
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

  router.get('/uploads', auth, requirePermission('media:read'), async (req, res) => {
    const page = parseParams(pageQuery, req.query);
    const rows = await applyPage(Upload.query().where({ org_id: principalOf(req).orgId }), page);
    const { items, next_cursor } = pageResult(rows, page);
    res.json({ uploads: items.map((u) => u.toPublic()), next_cursor });
  });

  return router;
}
