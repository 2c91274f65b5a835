import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { generateApiKey } from '../../shared/api-keys.js';
import { ApiKey } from '../../shared/db/models/api-key.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { notFound, parseBody, uuidParam } from '../errors.js';
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
    const generated = generateApiKey();
    const row = await ApiKey.query().insert({
      id: randomUUID(),
      org_id: principal.orgId,
      name: body.name,
      prefix: generated.prefix,
      key_hash: generated.hash,
      created_by: principal.kind === 'user' ? principal.userId : null,
    }).returning('*');
    res.status(201).json({ ...row.toPublic(), key: generated.key });
  });

  router.get('/', async (req, res) => {
    const keys = await ApiKey.query().where({ org_id: principalOf(req).orgId }).orderBy('created_at', 'desc');
    res.json({ api_keys: keys.map((k) => k.toPublic()) });
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
    const key = await ApiKey.query().findOne({ id: keyId, org_id: principalOf(req).orgId });
    if (!key) throw notFound('API key');
    if (!key.revoked_at) await ApiKey.query().patch({ revoked_at: new Date() }).where({ id: key.id }).whereNull('revoked_at');
    res.status(204).end();
  });

  return router;
}
