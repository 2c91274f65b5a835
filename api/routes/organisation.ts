import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { getOrganisation, updateOrganisationSettings } from '../services/organisation.js';
import { OrganisationSettings } from '../schemas/organisation.js';
import { parseBody } from '../validation.js';

/** The caller's organisation: its name for every member; a rename for admins. Mount at /org. */
export function organisationRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.get('/', auth, async (req, res) => {
    res.json(await getOrganisation(ctx.knex, principalOf(req).orgId));
  });

  router.patch('/', auth, requirePermission('org:settings'), async (req, res) => {
    const { name, discoverable, soft_binding } = parseBody(OrganisationSettings, req.body);
    const { orgId } = principalOf(req);
    res.json(await updateOrganisationSettings(ctx.knex, orgId, { name, discoverable, soft_binding }, req.log));
  });

  return router;
}
