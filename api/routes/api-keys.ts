import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { generateApiKey } from '../../shared/api-keys.js';
import { ApiKey } from '../../shared/db/models/api-key.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { ApiKeyParams, NewApiKeyInput } from '../schemas/api-keys.js';
import { parseBody, parseParams } from '../validation.js';

export function apiKeysRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:api-keys'));

  router.post('/', async (req, res) => {
    const principal = principalOf(req);
    const body = parseBody(NewApiKeyInput, req.body);
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

  router.delete('/:key_id', async (req, res) => {
    const { key_id: keyId } = parseParams(ApiKeyParams, req.params);
    const key = await ApiKey.query().findOne({ id: keyId, org_id: principalOf(req).orgId });
    if (!key) throw notFound('API key');
    if (!key.revoked_at) await ApiKey.query().patch({ revoked_at: new Date() }).where({ id: key.id }).whereNull('revoked_at');
    res.status(204).end();
  });

  return router;
}
