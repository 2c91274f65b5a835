import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errors, json, nextCursor, pageQuery, userOrApiKey, uuid, refusals } from './common.js';
import { formatsInWords, mediaBodies, MediaType } from './media.js';
import { z } from './zod.js';

export const Upload = z
  .object({ upload_id: uuid, sha256: z.string(), size: z.number().int(), mime_type: MediaType, filename: z.string(), created_at: dateTime })
  .openapi('Upload');

const tags = ['Media'];

export const uploadsPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/v1/media/upload',
    tags,
    summary: 'Upload an image, video or audio file to sign (recognised by content, not by name)',
    description: `Accepted formats (the format registry, shared/media/formats.ts): ${formatsInWords()}. The content decides the format (magic numbers and a walk over the file's structure), never the name or the declared type: other content is 415, an empty, damaged or truncated file 400. An image declaring more than MAX_IMAGE_PIXELS pixels (width x height from its header; an SVG's declared size) is 422 image_too_large; a JPEG, PNG, WebP, GIF, TIFF or AVIF image whose pixel data is missing or cut short is 400 corrupt_image (it is decoded in the uploads' own pool, UPLOAD_CHECK_POOL_SIZE processes that never wait behind verifications: 503 verification_busy when that is full). Size limits by kind: MAX_UPLOAD_BYTES for images, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO.`,
    security: userOrApiKey,
    request: { body: mediaBodies.upload },
    responses: {
      201: json(Upload, 'Stored'),
      ...refusals(400, 401, 403, 413, 415),
      422: errors.imageTooLarge,
      503: errors.verificationBusy,
    },
  },
  {
    method: 'get',
    path: '/v1/media/uploads',
    tags,
    summary: "The organisation's uploads, newest first",
    security: userOrApiKey,
    request: { query: pageQuery },
    responses: {
      200: json(z.object({ uploads: z.array(Upload), next_cursor: nextCursor }), 'A page of uploads'),
      ...refusals(400, 401),
    },
  },
];
