import { Router } from 'express';
import { Organisation } from '../../shared/db/models/organisation.js';
import { awaitCertificateRequest, ISSUANCE_WAIT_MS, requestOrgCertificate } from '../../shared/pki/certificate-requests.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { OrganisationSettings } from '../schemas/organisation.js';
import { parseBody } from '../validation.js';
import { applyOrgDiscoverability } from '../../shared/softbinding/repository.js';

function view(org: Organisation) {
  return { org_id: org.id, name: org.name, discoverable: org.discoverable, soft_binding: org.soft_binding, created_at: org.created_at.toISOString() };
}

/** The caller's organisation: its name for every member; a rename for admins. Mount at /org. */
export function organisationRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.get('/', auth, async (req, res) => {
    const org = await Organisation.query(ctx.knex).findById(principalOf(req).orgId);
    if (!org) throw notFound('organisation');
    res.json(view(org));
  });

  router.patch('/', auth, requirePermission('org:settings'), async (req, res) => {
    const { name, discoverable, soft_binding } = parseBody(OrganisationSettings, req.body);
    const { orgId } = principalOf(req);
    const org = await Organisation.query(ctx.knex).findById(orgId);
    if (!org) throw notFound('organisation');
    if (discoverable !== undefined && discoverable !== org.discoverable) {
      await ctx.knex.transaction(async (trx) => {
        await Organisation.query(trx).patch({ discoverable }).where({ id: orgId });
        await applyOrgDiscoverability(trx, orgId, discoverable);
      });
    }
    // Applies to files signed from now on: a signed file's manifest cannot lose or gain its assertion.
    if (soft_binding !== undefined && soft_binding !== org.soft_binding) await Organisation.query(ctx.knex).patch({ soft_binding }).where({ id: orgId });
    if (name === undefined || org.name === name) {
      res.json(view((await Organisation.query(ctx.knex).findById(orgId))!));
      return;
    }
    const previous = org.name;
    // An organisation that never had a certificate gets its first one already renamed.
    const hadCertificate = (await orgSigningState(ctx.knex, orgId)).state !== 'issuable';
    const requestId = await ctx.knex.transaction(async (trx) => {
      await Organisation.query(trx).patch({ name }).where({ id: orgId });
      return hadCertificate ? requestOrgCertificate(trx, orgId, 'rotate') : undefined;
    });
    const outcome = requestId ? await awaitCertificateRequest(ctx.knex, requestId, ISSUANCE_WAIT_MS) : undefined;
    if (outcome?.status === 'failed') {
      await Organisation.query(ctx.knex).patch({ name: previous }).where({ id: orgId });
      req.log.error({ code: outcome.code, message: outcome.message }, 'rename: the new signing certificate could not be issued; name restored');
      throw new ApiError(503, 'certificate_unavailable', 'the signing certificate with the new name could not be issued; the name is unchanged, try again shortly', { 'Retry-After': '30' });
    }
    // Not answered yet (the scheduler is down or busy): the request stands, and the certificate follows.
    if (outcome?.status === 'pending') req.log.warn({ requestId }, 'rename: the signing certificate with the new name is not issued yet');
    res.json(view((await Organisation.query(ctx.knex).findById(orgId))!));
  });

  return router;
}
