import { API_KEY_PREFIX } from '../shared/api-keys.js';
import { ROLES } from '../shared/roles.js';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Schemas, security schemes and shared error responses referenced by the route annotations. */
export const openApiComponents = {
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /auth/login, /auth/register or /auth/refresh' },
    apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `Organisation API key (${API_KEY_PREFIX}...); acts as signer on /v1 routes` },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', example: 'validation_error' },
            message: { type: 'string', example: 'email is required' },
          },
        },
      },
    },
    Role: { type: 'string', enum: [...ROLES] },
    RegisterInput: {
      type: 'object',
      required: ['email', 'password', 'org_name'],
      properties: {
        email: { type: 'string', format: 'email' },
        password: { type: 'string', minLength: 10, description: 'at least 10 characters, at most 72 bytes' },
        org_name: { type: 'string', maxLength: 200 },
      },
    },
    LoginInput: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' } },
    },
    TokenPair: {
      type: 'object',
      required: ['access_token', 'refresh_token', 'token_type'],
      properties: {
        access_token: { type: 'string', description: 'JWT, HS256, expires after 15 minutes' },
        refresh_token: { type: 'string', description: 'JWT, expires after 30 days, single use' },
        token_type: { type: 'string', enum: ['bearer'] },
        expires_in: { type: 'integer', description: 'access token lifetime in seconds', example: 900 },
      },
    },
    Me: {
      type: 'object',
      properties: {
        user_id: { type: 'string', format: 'uuid' },
        email: { type: 'string' },
        org_id: { type: 'string', format: 'uuid' },
        role: { $ref: '#/components/schemas/Role' },
      },
    },
    OrgUser: {
      type: 'object',
      properties: {
        user_id: { type: 'string', format: 'uuid' },
        email: { type: 'string' },
        org_id: { type: 'string', format: 'uuid' },
        role: { $ref: '#/components/schemas/Role' },
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    NewOrgUser: {
      type: 'object',
      required: ['email', 'password', 'role'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' }, role: { $ref: '#/components/schemas/Role' } },
    },
    ApiKey: {
      type: 'object',
      properties: {
        key_id: { type: 'string', format: 'uuid' },
        name: { type: 'string' },
        prefix: { type: 'string', example: `${API_KEY_PREFIX}AbC123` },
        created_at: { type: 'string', format: 'date-time' },
        last_used_at: { type: 'string', format: 'date-time', nullable: true },
        revoked_at: { type: 'string', format: 'date-time', nullable: true },
      },
    },
    NewApiKey: {
      allOf: [
        { $ref: '#/components/schemas/ApiKey' },
        { type: 'object', properties: { key: { type: 'string', description: 'the raw key, shown only once' } } },
      ],
    },
    Upload: {
      type: 'object',
      properties: {
        upload_id: { type: 'string', format: 'uuid' },
        sha256: { type: 'string' },
        size: { type: 'integer' },
        mime_type: { type: 'string', enum: ['image/jpeg', 'image/png'] },
        filename: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    ManifestInput: {
      type: 'object',
      required: ['title', 'creator'],
      additionalProperties: false,
      properties: {
        title: { type: 'string', maxLength: 256, description: 'the work\'s title (dc:title of the manifest)' },
        creator: { type: 'string', maxLength: 256, description: 'the author, written as a schema.org Person in a CreativeWork assertion' },
        description: { type: 'string', maxLength: 2000, description: 'caption or description (CreativeWork description)' },
        digitalSourceType: {
          type: 'string',
          description: 'IPTC digital source type URL for the c2pa.created action; default http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient).',
        },
        dateCreated: { type: 'string', description: 'ISO 8601 date (YYYY-MM-DD) or date-time with a zone (CreativeWork dateCreated)' },
      },
    },
    SignInput: {
      type: 'object',
      required: ['upload_id', 'manifest'],
      properties: { upload_id: { type: 'string', format: 'uuid' }, manifest: { $ref: '#/components/schemas/ManifestInput' } },
    },
    Job: {
      type: 'object',
      properties: {
        job_id: { type: 'string', format: 'uuid' },
        status: { type: 'string', enum: ['queued', 'processing', 'signed', 'failed'] },
        upload_id: { type: 'string', format: 'uuid' },
        manifest: { $ref: '#/components/schemas/ManifestInput' },
        attempts: { type: 'integer' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
        status_url: { type: 'string', format: 'uri' },
        error: { type: 'object', nullable: true, properties: { code: { type: 'string' }, message: { type: 'string' } } },
        signed_file: {
          type: 'object',
          nullable: true,
          properties: {
            file_id: { type: 'string', format: 'uuid' },
            sha256: { type: 'string' },
            size: { type: 'integer' },
            mime_type: { type: 'string' },
            certificate_serial: { type: 'string', description: 'serial (hex) of the signing certificate' },
            download_url: { type: 'string', format: 'uri' },
          },
        },
      },
    },
    Verification: {
      type: 'object',
      properties: {
        validation_state: { type: 'string', enum: ['Trusted', 'Valid', 'Invalid', 'none'], description: 'c2pa-rs verdict with the service root as the only trust anchor; none = no manifest' },
        active_manifest: { type: 'string', nullable: true },
        manifest: {
          type: 'object',
          nullable: true,
          properties: {
            title: { type: 'string', nullable: true },
            creator: { type: 'string', nullable: true },
            claim_generator: { type: 'string', nullable: true },
            signed_at: { type: 'string', nullable: true, description: 'time from the RFC 3161 timestamp, when present' },
            actions: { type: 'array', items: { type: 'string' } },
            ingredients: { type: 'array', items: { type: 'object' } },
          },
        },
        signer: { type: 'object', nullable: true, properties: { subject: { type: 'string' }, serial: { type: 'string' }, issuer: { type: 'string' } } },
        status: {
          type: 'object',
          properties: {
            success: { type: 'array', items: { type: 'string' } },
            informational: { type: 'array', items: { type: 'string' } },
            failure: { type: 'array', items: { type: 'string' } },
          },
        },
        revocation: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['good', 'revoked', 'expired', 'not_issued_by_service', 'no_signer'] },
            revoked_at: { type: 'string', format: 'date-time' },
            reason: { type: 'string' },
          },
        },
        mime_type: { type: 'string' },
        sha256: { type: 'string' },
      },
    },
    Health: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        database: { type: 'string', enum: ['ok', 'unreachable'] },
        redis: { type: 'string', enum: ['ok', 'unreachable'] },
      },
    },
  },
  parameters: {
    Limit: { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    Cursor: { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'next_cursor of the previous page' },
  },
  responses: {
    TooLarge: error('The file exceeds the upload limit (413)'),
    UnsupportedType: error('Not a JPEG or PNG image (415)'),
    ValidationError: error('Invalid input (400): the message names the field'),
    Unauthenticated: error('Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials'),
    Forbidden: error('The caller may not do this (403)'),
    NotFound: error('Not found, or belongs to another organisation (404)'),
    Conflict: error('Conflicts with the current state (409)'),
    RateLimited: {
      description: 'Too many requests (429); see the Retry-After header',
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  },
};
