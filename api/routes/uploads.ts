import { Router } from 'express';
import { MediaRejectedError } from '../../shared/media/formats.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { receiveFile, stagingLimit } from '../media/multipart-file.js';
import { pageQuery } from '../schemas/common.js';
import { parseParams } from '../validation.js';
import { listUploads, storeUpload } from '../services/uploads.js';

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

export function uploadsRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/upload', auth, requirePermission('media:upload'), async (req, res) => {
    const principal = principalOf(req);
    const { staged, filename } = await receiveFile(req, ctx.staging, stagingLimit(ctx.config));
    try {
      res.status(201).json(await storeUpload(ctx, principal, staged, filename));
    } catch (err) {
      throw err instanceof MediaRejectedError ? mediaRejection(err) : err;
    }
  });

  router.get('/uploads', auth, requirePermission('media:read'), async (req, res) => {
    const page = parseParams(pageQuery, req.query);
    res.json(await listUploads(ctx.knex, principalOf(req).orgId, page));
  });

  return router;
}
