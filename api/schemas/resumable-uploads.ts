import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errorResponse, errors, json, noContent, refusals, uri, userOrApiKey, uuid, uuidField } from './common.js';
import { Upload } from './uploads.js';
import { z } from './zod.js';

const tags = ['Media'];
const TUS = 'tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol\'s; errors come as the service\'s JSON error shape.';

export const SessionParams = z.object({ session_id: uuidField });

const digits = (description: string) => z.string().regex(/^\d{1,16}$/, 'must be a whole number of bytes').openapi({ description });

/** The creation request's headers (tus creation extension). A length deferred to later is refused: it is needed to check the limit. */
export const CreationHeaders = z.object({
  'Tus-Resumable': z.literal('1.0.0').openapi({ description: 'the protocol version' }),
  'Upload-Length': digits('the whole file\'s size in bytes (Upload-Defer-Length is not accepted)').transform(Number),
  'Upload-Metadata': z
    .string()
    .optional()
    .openapi({ description: 'comma-separated `key base64(value)` pairs; `filename` names the upload (as the multipart upload\'s file name does); others are ignored' }),
});

const PatchHeaders = z.object({
  'Tus-Resumable': z.literal('1.0.0'),
  'Upload-Offset': digits('the bytes received so far, as HEAD reports them'),
  'Content-Type': z.literal('application/offset+octet-stream'),
});

const ProtocolHeaders = z.object({ 'Tus-Resumable': z.literal('1.0.0') });

const header = (description: string) => ({ schema: { type: 'string' as const }, description });

const UploadSession = z
  .object({
    session_id: uuid,
    upload_url: uri.openapi({ description: 'where HEAD, PATCH and DELETE go' }),
    status: z.enum(['receiving', 'completing', 'completed']).openapi({ description: 'receiving bytes; being checked and stored; completed (`upload` is set)' }),
    filename: z.string(),
    size: z.number().int().openapi({ description: 'the declared Upload-Length' }),
    offset: z.number().int().openapi({ description: 'bytes received so far' }),
    upload: Upload.nullable().openapi({ description: 'the upload the session became, once completed: sign it with POST /v1/media/sign' }),
    expires_at: dateTime.openapi({ description: 'UPLOAD_EXPIRY_HOURS after the last PATCH began; then 404 and swept' }),
    created_at: dateTime,
  })
  .openapi('UploadSession');

const expired = errorResponse('No such session in the organisation (another organisation\'s is not found), or it expired: code upload_expired until the sweep removes it, not_found after (404; tus allows 404 or 410, the service answers 404 for both)');

export const resumableUploadsPaths: RouteConfig[] = [
  {
    method: 'options',
    path: '/v1/media/resumable-uploads',
    tags,
    summary: 'tus discovery: the protocol version, extensions and largest size (no credentials needed)',
    description: TUS,
    responses: {
      204: {
        description: 'Tus-Version, Tus-Extension (creation, creation-with-upload, termination...) and Tus-Max-Size',
        headers: { 'Tus-Version': header('1.0.0'), 'Tus-Extension': header('supported extensions'), 'Tus-Max-Size': header('the largest Upload-Length accepted') },
      },
    },
  },
  {
    method: 'post',
    path: '/v1/media/resumable-uploads',
    tags,
    summary: 'Start a resumable upload (tus creation) for a file of any size up to the largest per-kind limit',
    description: `${TUS} The session belongs to the caller's organisation. Upload-Length over the largest of MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO is 413 naming that limit (the kind is known only from the content: once the last byte is in, the limit of the kind the file turns out to be applies, as for POST /v1/media/upload). The answer's Location is the session's URL (relative). A body may come with the request (creation-with-upload, Content-Type: application/offset+octet-stream).`,
    security: userOrApiKey,
    request: { headers: CreationHeaders },
    responses: {
      201: {
        description: 'Created: Location names the session. When the body carried the whole file, the session is completed and the body is the Upload, as for POST /v1/media/upload',
        headers: { Location: header('the session\'s URL, relative'), 'Upload-Expires': header('when the session expires unless bytes arrive (RFC 7231 date)') },
        content: { 'application/json': { schema: Upload } },
      },
      ...refusals(400, 401, 403, 413),
      412: errorResponse('Tus-Resumable is missing or not 1.0.0 (412, code tus_version_unsupported)'),
    },
  },
  {
    method: 'head',
    path: '/v1/media/resumable-uploads/{session_id}',
    tags,
    summary: 'The bytes received so far (tus): Upload-Offset, where to resume',
    description: `${TUS} A completed session answers Upload-Offset equal to Upload-Length (ask GET for the upload it became).`,
    security: userOrApiKey,
    request: { params: SessionParams, headers: ProtocolHeaders },
    responses: {
      200: { description: 'Upload-Offset and Upload-Length (and Upload-Metadata as sent); Cache-Control: no-store', headers: { 'Upload-Offset': header('bytes received'), 'Upload-Length': header('the declared size') } },
      ...refusals(400, 401, 403),
      404: expired,
    },
  },
  {
    method: 'patch',
    path: '/v1/media/resumable-uploads/{session_id}',
    tags,
    summary: 'Send bytes from Upload-Offset on (tus); the last byte makes the session an upload',
    description: `${TUS} Upload-Offset must be the bytes received so far: anything else is 409 upload_offset_conflict and nothing is written (a request cut off keeps what arrived: HEAD says where to go on). When the last byte is in, the file goes through the checks of POST /v1/media/upload; the answer is 200 with the Upload (tus itself answers 204; tus clients take any 2xx). A file those checks refuse is answered as that endpoint answers it (415, 413 with the kind's limit, 400, 422), and the session and its bytes are removed: nothing is recorded. When a service the checks need is unavailable (503), the bytes are kept: a PATCH at the final offset with an empty body tries again. Another request writing the same session at that moment: 423 upload_locked (retry).`,
    security: userOrApiKey,
    request: { params: SessionParams, headers: PatchHeaders, body: { required: true, content: { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } } },
    responses: {
      200: json(Upload, 'The last byte is in: the upload the session became'),
      204: { description: 'Bytes stored; Upload-Offset is the new offset, Upload-Expires the session\'s new expiry', headers: { 'Upload-Offset': header('bytes received'), 'Upload-Expires': header('RFC 7231 date') } },
      ...refusals(400, 401, 403, 409, 413, 415),
      404: expired,
      422: errors.imageTooLarge,
      423: errorResponse('Another request holds the session (423, upload_locked): retry'),
      503: errors.verificationBusy,
    },
  },
  {
    method: 'delete',
    path: '/v1/media/resumable-uploads/{session_id}',
    tags,
    summary: 'Abandon a resumable upload (tus termination): the session and its bytes are removed',
    description: TUS,
    security: userOrApiKey,
    request: { params: SessionParams, headers: ProtocolHeaders },
    responses: { 204: noContent('Removed'), ...refusals(400, 401, 403), 404: expired, 409: errorResponse('The session is completed or completing (409, upload_complete): its upload stays') },
  },
  {
    method: 'get',
    path: '/v1/media/resumable-uploads/{session_id}',
    tags,
    summary: 'A resumable upload\'s state, and the upload it became once completed',
    description: 'Not part of tus: for clients that lost the answer to their last PATCH (they find the upload here) and for progress views.',
    security: userOrApiKey,
    request: { params: SessionParams },
    responses: { 200: json(UploadSession, 'The session'), ...refusals(400, 401), 404: expired },
  },
];
