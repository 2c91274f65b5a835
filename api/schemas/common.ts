import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { MANIFEST_PLACEMENTS } from '../../shared/domain/manifest-placement.js';
import { PASSWORD_MAX_BYTES } from '../../shared/passwords.js';
import { ROLES } from '../../shared/roles.js';
import type { PageRequest } from '../../shared/db/page.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination.js';
import { refuse } from '../validation.js';
import { z } from './zod.js';

/** Pieces of the HTTP contract that several areas use: fields, the error body, pagination, security. */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .regex(EMAIL, 'must be an e-mail address')
  .openapi({ format: 'email' });

// Length limits only here; strength is judged with the e-mail at hand (checkPasswordStrength).
export const passwordField = z
  .string()
  .min(1, 'is required')
  .max(PASSWORD_MAX_BYTES * 4, 'is too long')
  .openapi({ description: `at least 10 characters, at most ${PASSWORD_MAX_BYTES} bytes` });

export const Role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` }).openapi('Role');

export const nameField = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID that names something (a path parameter, a template_id): a malformed one is the client's mistake (400
 * invalid_parameter, "<name> must be a UUID"), not a miss (404). Lowercased.
 */
export const uuidField = z.preprocess((value, ctx) => {
  if (typeof value === 'string' && UUID.test(value)) return value.toLowerCase();
  refuse(ctx, 'must be a UUID', 'invalid_parameter');
  return z.NEVER;
}, z.string().openapi({ format: 'uuid' }));

/** Ids and timestamps as responses show them. */
export const uuid = z.string().openapi({ format: 'uuid' });
export const dateTime = z.string().openapi({ format: 'date-time' });
export const uri = z.string().openapi({ format: 'uri' });

/**
 * An optional per-request or per-template choice: true, false, or absent/null (follow the organisation's setting,
 * GET/PATCH /org). Absent reads as null.
 */
export const orgChoice = (description: string) =>
  z
    .preprocess((value, ctx) => {
      if (value === undefined || value === null) return null;
      if (typeof value === 'boolean') return value;
      refuse(ctx, 'must be true, false or null (follow the organisation)');
      return z.NEVER;
    }, z.boolean().nullable())
    .optional()
    .transform((choice) => choice ?? null)
    .openapi({ description: `${description}; null or absent follows the organisation (GET/PATCH /org)` });

/** A request's or template's manifest placement: "embedded", "remote", or null/absent (the default: see `fallback`). */
export const manifestPlacementChoice = (description: string, fallback: string) =>
  z
    .preprocess((value, ctx) => {
      if (value === undefined || value === null) return null;
      if (typeof value === 'string' && (MANIFEST_PLACEMENTS as readonly string[]).includes(value)) return value;
      refuse(ctx, `must be one of ${MANIFEST_PLACEMENTS.join(', ')}, or null (${fallback})`);
      return z.NEVER;
    }, z.enum(MANIFEST_PLACEMENTS).nullable())
    .optional()
    .transform((choice) => choice ?? null)
    .openapi({ description: `${description}; null or absent: ${fallback}` });

const PAGE_LIMIT = `must be a whole number from 1 to ${MAX_PAGE_SIZE}`;

/** `?limit=` and the opaque `?cursor=` of the previous page. */
export const pageFields = {
  limit: z.preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z.number({ error: PAGE_LIMIT }).int(PAGE_LIMIT).min(1, PAGE_LIMIT).max(MAX_PAGE_SIZE, PAGE_LIMIT).default(DEFAULT_PAGE_SIZE),
  ),
  cursor: z
    .string({ error: 'is not valid' })
    .transform((cursor, ctx) => decodeCursor(cursor) ?? (refuse(ctx, 'is not valid', 'invalid_parameter'), z.NEVER))
    .optional()
    .openapi({ description: 'next_cursor of the previous page' }),
};

export const toPageRequest = ({ limit, cursor }: { limit: number; cursor?: PageRequest['after'] }): PageRequest => (cursor ? { limit, after: cursor } : { limit });

/** A list's page, as a PageRequest (api/pagination.ts). */
export const pageQuery = z.object(pageFields).transform(toPageRequest);

/** The cursor of a list's next page; null on the last. */
export const nextCursor = z.string().nullable();

const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'validation_error' }),
      message: z.string().openapi({ example: 'email is required' }),
    }),
  })
  .openapi('Error');

export const json = <T extends z.ZodType>(schema: T, description: string): ResponseConfig => ({ description, content: { 'application/json': { schema } } });

export const errorResponse = (description: string, headers?: ResponseConfig['headers']): ResponseConfig => ({
  ...json(ErrorBody, description),
  ...(headers ? { headers } : {}),
});

/** The error answers operations share; one in an operation's own words is an errorResponse. */
export const errors = {
  validation: errorResponse('Invalid input (400): the message names the field'),
  unauthenticated: errorResponse('Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials'),
  forbidden: errorResponse('The caller may not do this (403)'),
  notFound: errorResponse('Not found, or belongs to another organisation (404)'),
  conflict: errorResponse('Conflicts with the current state (409)'),
  tooLarge: errorResponse('The file exceeds the upload limit (413)'),
  unsupportedType: errorResponse('Not an image, video or audio format the service reads, told by content (415)'),
  imageTooLarge: errorResponse('The image declares more pixels than MAX_IMAGE_PIXELS (422, code image_too_large): refused from its header, before anything decodes it; or an ISO BMFF file (MP4, MOV, M4A, AVIF, HEIC, HEIF) has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex)'),
  unreadableCredentials: errorResponse('The file is sound but its C2PA data cannot be parsed (422, code unreadable_credentials), or an image declares more than MAX_IMAGE_PIXELS pixels (422, image_too_large), or an ISO BMFF file has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex: refused before c2pa-rs reads it); a damaged file (cut short, out of bounds) is a 400 corrupt_image or corrupt_media naming what is wrong'),
  verificationBusy: errorResponse('The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready)'),
  authBusy: errorResponse('PASSWORD_CHECKS_MAX password checks are running or waiting in this API process (503, code auth_busy): see the Retry-After header', {
    'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' },
  }),
  rateLimited: errorResponse(
    'Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header',
    { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } },
  ),
};

const STANDARD = { 400: errors.validation, 401: errors.unauthenticated, 403: errors.forbidden, 404: errors.notFound, 409: errors.conflict, 413: errors.tooLarge, 415: errors.unsupportedType, 429: errors.rateLimited };

/** The shared error answers for these statuses, as an operation's responses list them. */
export function refusals(...statuses: (keyof typeof STANDARD)[]): Record<number, ResponseConfig> {
  return Object.fromEntries(statuses.map((status) => [status, STANDARD[status]]));
}

export const noContent = (description: string): ResponseConfig => ({ description });

/** Who may call: a signed-in user (Bearer access token) and, where allowed, an organisation API key (api/openapi/document.ts). */
export const userOnly: Record<string, string[]>[] = [{ bearerAuth: [] }];
/** The `Link` response header naming where a signed file's manifest is served (C2PA 2.2 §15.5.3.2). */
export const c2paManifestLinkHeader = {
  schema: { type: 'string' as const },
  description:
    'When the signed file\'s manifest is remote (manifest_placement "remote") or discoverable: `<{BASE_URL}/v1/manifests/{manifest id}>; rel="c2pa-manifest"`, where the public manifest repository serves its manifest store (C2PA 2.2 §15.5.3.2, manifest discovery over HTTP). Absent otherwise.',
};

export const userOrApiKey: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }];
