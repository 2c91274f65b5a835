import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { NewTrustAnchorInput, TrustAnchorParams } from '../schemas/organisation-trust-anchors.js';
import { addOrganisationTrustAnchor, listOrgTrustAnchors, removeOrganisationTrustAnchor } from '../services/organisation-trust-anchors.js';
import { parseBody, parseParams } from '../validation.js';

export function organisationTrustAnchorsRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:trust-anchors'));

  router.post('/', async (req, res) => {
    const body = parseBody(NewTrustAnchorInput, req.body);
    res.status(201).json(await addOrganisationTrustAnchor(ctx.knex, principalOf(req), body));
  });

  router.get('/', async (req, res) => {
    res.json({ trust_anchors: await listOrgTrustAnchors(ctx.knex, principalOf(req).orgId) });
  });

  router.delete('/:anchor_id', async (req, res) => {
    const { anchor_id: anchorId } = parseParams(TrustAnchorParams, req.params);
    await removeOrganisationTrustAnchor(ctx.knex, principalOf(req).orgId, anchorId, actorOf(principalOf(req)));
    res.status(204).end();
  });

  return router;
}
