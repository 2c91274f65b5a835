import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_KEY_PREFIX } from '../../shared/api-keys.js';
import { dateTime, errors, json, nameField, noContent, userOnly, uuid, uuidField, refusals } from './common.js';
import { z } from './zod.js';

export const NewApiKeyInput = z.object({
  name: nameField(100),
  user_id: uuidField.optional().openapi({ description: "a user of the organisation the key signs as (CAWG identity: sign requests with `identity` use that user's identity certificate); without it the key has no person, and such requests are 422 no_identity" }),
});
export const ApiKeyParams = z.object({ key_id: uuidField });

const ApiKey = z
  .object({
    key_id: uuid,
    name: z.string(),
    prefix: z.string().openapi({ example: `${API_KEY_PREFIX}AbC123` }),
    user_id: uuid.nullable().openapi({ description: 'the user the key signs as, when an admin bound it to one' }),
    created_at: dateTime,
    last_used_at: dateTime.nullable(),
    revoked_at: dateTime.nullable(),
  })
  .openapi('ApiKey');

const NewApiKey = ApiKey.extend({ key: z.string().openapi({ description: 'the raw key, shown only once' }) }).openapi('NewApiKey');

const tags = ['Organisation'];
const security = userOnly;

export const apiKeysPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/org/api-keys',
    tags,
    summary: 'Create an API key (admin). The raw key is in this response only.',
    security,
    request: { body: { required: true, content: { 'application/json': { schema: NewApiKeyInput } } } },
    responses: {
      201: json(NewApiKey, 'The new key'),
      ...refusals(400, 401, 403, 404),
    },
  },
  {
    method: 'get',
    path: '/org/api-keys',
    tags,
    summary: "List the organisation's API keys, without secrets (admin)",
    security,
    responses: {
      200: json(z.object({ api_keys: z.array(ApiKey) }), 'Keys'),
      ...refusals(401, 403),
    },
  },
  {
    method: 'delete',
    path: '/org/api-keys/{key_id}',
    tags,
    summary: 'Revoke an API key (admin); it stops working at once. Revoking a revoked key is a no-op.',
    security,
    request: { params: ApiKeyParams },
    responses: {
      204: noContent('Revoked'),
      ...refusals(400, 401, 403, 404),
    },
  },
];
