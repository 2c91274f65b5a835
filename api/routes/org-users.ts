import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { addOrgUser, changeUserRole, listOrgUsers, removeOrgUser } from '../services/org-users.js';
import { NewOrgUser, OrgUserParams, OrgUserPatch } from '../schemas/org-users.js';
import { parseBody, parseParams } from '../validation.js';

export function orgUsersRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:users'));

  router.get('/', async (req, res) => {
    res.json({ users: await listOrgUsers(ctx.knex, principalOf(req).orgId) });
  });

  router.post('/', async (req, res) => {
    const { orgId } = principalOf(req);
    const body = parseBody(NewOrgUser, req.body);
    res.status(201).json(await addOrgUser(ctx.knex, orgId, body, { passwords: ctx.passwords, bcryptRounds: ctx.config.bcryptRounds }, actorOf(principalOf(req))));
  });

  router.patch('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const { user_id: userId } = parseParams(OrgUserParams, req.params);
    const body = parseBody(OrgUserPatch, req.body);
    res.json(await changeUserRole(ctx.knex, orgId, userId, body.role, actorOf(principalOf(req))));
  });

  router.delete('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const { user_id: userId } = parseParams(OrgUserParams, req.params);
    await removeOrgUser(ctx.knex, orgId, userId, actorOf(principalOf(req)), { events: ctx.pkiEvents, logger: ctx.logger });
    res.status(204).end();
  });

  return router;
}
