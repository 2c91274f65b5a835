import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errors, json, nextCursor, pageQuery, userOrApiKey, uuid, refusals } from './common.js';
import { formatsInWords, mediaBodies, MediaType } from './media.js';
import { z } from './zod.js';

export const RenditionPart = z
  .object({
    role: z.enum(['init', 'fragment', 'playlist']),
    filename: z.string().openapi({ description: 'the name it was sent under, and comes back under in the signed rendition' }),
    size: z.number().int(),
    sha256: z.string(),
  })
  .openapi('RenditionPart');

export const RenditionSummary = z
  .object({
    fragments: z.number().int().openapi({ description: 'media segments, in order' }),
    playlists: z.number().int(),
    parts: z.array(RenditionPart).optional().openapi({ description: 'every part in order (init, segments, playlists): in the answer to the upload' }),
  })
  .openapi('RenditionSummary');

export const Upload = z
  .object({
    upload_id: uuid,
    sha256: z.string().openapi({ description: "the file's SHA-256; a rendition's is its init segment's" }),
    size: z.number().int().openapi({ description: "bytes; a rendition's, of all its parts" }),
    mime_type: MediaType,
    filename: z.string(),
    document_title: z
      .string()
      .nullable()
      .openapi({ description: "a document's title from its own metadata (PDF Info or XMP dc:title, EPUB package dc:title, OOXML docProps/core.xml, OpenDocument meta.xml), which a sign request without manifest.title takes; null for other media and documents that give none" }),
    created_at: dateTime,
    rendition: RenditionSummary.nullable().openapi({ description: 'a fragmented MP4 rendition (init segment, media segments, playlists); null for a single file' }),
  })
  .openapi('Upload');

const tags = ['Media'];

export const uploadsPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/v1/media/upload',
    tags,
    summary: 'Upload an image, video or audio file, or a fragmented MP4 rendition, to sign (recognised by content, not by name)',
    description: `A single file is the part "file". A fragmented MP4 rendition (a DASH or HLS/CMAF representation) is one part "init" (its init segment: a moov with an mvex), one or more parts "fragment" (its media segments, .m4s, in order, each one moof followed by one mdat) and optionally parts "playlist" (.mpd, .m3u8, at most 16, returned unchanged with the signed rendition; one addressing byte ranges inside the segments is 422 playlist_invalid), at most MAX_RENDITION_FRAGMENTS fragments, all of it within the kind's size limit; each part keeps its file name, which must differ (400 duplicate_part_name). A rendition that cannot be signed is 422 with its reason: init_segment_invalid (no mvex, media fragments in it), fragment_invalid (not one moof followed by one mdat), fragment_mismatch (a track the init segment does not have: from another init segment), fragments_out_of_order (their sequence numbers do not increase), rendition_already_signed. Accepted formats (the format registry, shared/media/formats.ts): ${formatsInWords()}. The content decides the format (magic numbers and a walk over the file's structure), never the name or the declared type: other content is 415, an empty, damaged or truncated file 400. An image declaring more than MAX_IMAGE_PIXELS pixels (width x height from its header; an SVG's declared size) is 422 image_too_large; a JPEG, PNG, WebP, GIF, TIFF or AVIF image whose pixel data is missing or cut short is 400 corrupt_image (it is decoded in the uploads' own pool, UPLOAD_CHECK_POOL_SIZE processes that never wait behind verifications: 503 verification_busy when that is full). Size limits by kind: MAX_UPLOAD_BYTES for images, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO.`,
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
