import { Router } from 'express';
import { z } from 'zod';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { parseBody, uuidParam } from '../errors.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import { nameField } from '../validation.js';

const createBody = z.object({ name: nameField(100) });

export function apiKeysRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:api-keys'));

  /**
   * @openapi
   * /org/api-keys:
   *   post:
   *     tags: [Organisation]
   *     summary: Create an API key (admin). The raw key is in this response only.
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { type: object, required: [name], properties: { name: { type: string, maxLength: 100 } } } } }
   *     responses:
   *       201: { description: The new key, content: { application/json: { schema: { $ref: '#/components/schemas/NewApiKey' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *   get:
   *     tags: [Organisation]
   *     summary: List the organisation's API keys, without secrets (admin)
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       200: { description: Keys, content: { application/json: { schema: { type: object, properties: { api_keys: { type: array, items: { $ref: '#/components/schemas/ApiKey' } } } } } } }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   */
  router.post('/', async (req, res) => {
    const principal = principalOf(req);
    const body = parseBody(createBody, req.body);
    res.status(201).json(await createApiKey(ctx.knex, principal, body.name));
  });

  router.get('/', async (req, res) => {
    res.json({ api_keys: await listApiKeys(ctx.knex, principalOf(req).orgId) });
  });

  /**
   * @openapi
   * /org/api-keys/{key_id}:
   *   delete:
   *     tags: [Organisation]
   *     summary: Revoke an API key (admin); it stops working at once. Revoking a revoked key is a no-op.
   *     security: [{ bearerAuth: [] }]
   *     parameters:
   *       - { name: key_id, in: path, required: true, schema: { type: string, format: uuid } }
   *     responses:
   *       204: { description: Revoked }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   */
  router.delete('/:key_id', async (req, res) => {
    const keyId = uuidParam(req.params.key_id, 'key_id');
    await revokeApiKey(ctx.knex, principalOf(req).orgId, keyId);
    res.status(204).end();
  });

  return router;
}
