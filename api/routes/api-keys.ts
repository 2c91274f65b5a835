import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import { ApiKeyParams, NewApiKeyInput } from '../schemas/api-keys.js';
import { parseBody, parseParams } from '../validation.js';

export function apiKeysRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:api-keys'));

  router.post('/', async (req, res) => {
    const principal = principalOf(req);
    const body = parseBody(NewApiKeyInput, req.body);
    res.status(201).json(await createApiKey(ctx.knex, principal, body.name, body.user_id));
  });

  router.get('/', async (req, res) => {
    res.json({ api_keys: await listApiKeys(ctx.knex, principalOf(req).orgId) });
  });

  router.delete('/:key_id', async (req, res) => {
    const { key_id: keyId } = parseParams(ApiKeyParams, req.params);
    await revokeApiKey(ctx.knex, principalOf(req).orgId, keyId, actorOf(principalOf(req)));
    res.status(204).end();
  });

  return router;
}
