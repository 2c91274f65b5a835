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
    Health: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        database: { type: 'string', enum: ['ok', 'unreachable'] },
        redis: { type: 'string', enum: ['ok', 'unreachable'] },
      },
    },
  },
  responses: {
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
