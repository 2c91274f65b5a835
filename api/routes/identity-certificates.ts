import { Router } from 'express';
import { authenticate, requirePermission, requireUser } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ChainInput, ExternalRequestParams, RevocationInput } from '../schemas/certificates.js';
import { IdentityRevocationInput, IdentityUserParams } from '../schemas/identity-certificates.js';
import { acceptChain, getExternalRequest, listExternalRequestViews, recordRevocation, withdrawRequest } from '../services/external-certificates.js';
import { issueMyIdentityCertificate, myIdentityCertificates, requestMyExternalIdentity, revokeUserIdentityCertificates } from '../services/identity-certificates.js';
import { parseBody, parseParams } from '../validation.js';

/**
 * People's identity certificates (CAWG identity): a signed-in user's own (/auth/me/identity-certificate: from the
 * service CA, or from the organisation's external CA through .../requests, a key and CSR, then the CA's chain), and
 * an admin's revocation of a user's (/org/users/{user_id}/identity-certificate/revoke). Issued and revoked by the
 * scheduler.
 */
export function identityCertificatesRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.post('/auth/me/identity-certificate', auth, requireUser, async (req, res) => {
    const p = principalOf(req);
    res.status(201).json(await issueMyIdentityCertificate(ctx.knex, p.orgId, p.kind === 'user' ? p.userId : ''));
  });

  router.get('/auth/me/identity-certificate', auth, requireUser, async (req, res) => {
    const p = principalOf(req);
    res.set('Cache-Control', 'private, no-cache');
    res.json(await myIdentityCertificates(ctx.knex, p.orgId, p.kind === 'user' ? p.userId : ''));
  });

  /** The signed-in user as the owner of their requests to an external CA. */
  const me = (req: Parameters<typeof principalOf>[0]) => {
    const p = principalOf(req);
    return { orgId: p.orgId, userId: p.kind === 'user' ? p.userId : '' };
  };
  const requests = '/auth/me/identity-certificate/requests';

  router.post(requests, auth, requireUser, async (req, res) => {
    const { orgId, userId } = me(req);
    res.status(201).json(await requestMyExternalIdentity(ctx.knex, ctx.config, orgId, userId));
  });

  router.get(requests, auth, requireUser, async (req, res) => {
    res.set('Cache-Control', 'private, no-cache');
    res.json({ requests: await listExternalRequestViews(ctx.knex, me(req)) });
  });

  router.get(`${requests}/:request_id`, auth, requireUser, async (req, res) => {
    res.set('Cache-Control', 'private, no-cache');
    res.json(await getExternalRequest(ctx.knex, me(req), parseParams(ExternalRequestParams, req.params).request_id));
  });

  router.post(`${requests}/:request_id/chain`, auth, requireUser, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    const { chain_pem: chainPem } = parseBody(ChainInput, req.body);
    res.json(await acceptChain(ctx, me(req), id, chainPem));
  });

  router.post(`${requests}/:request_id/withdraw`, auth, requireUser, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    res.json(await withdrawRequest(ctx.knex, me(req), id));
  });

  router.post(`${requests}/:request_id/revoked`, auth, requireUser, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    const { reason, revoked_at: revokedAt } = parseBody(RevocationInput, req.body);
    res.json(await recordRevocation(ctx.knex, me(req), id, reason, revokedAt ? new Date(revokedAt) : undefined));
  });

  router.post('/org/users/:user_id/identity-certificate/revoke', auth, requirePermission('org:users'), async (req, res) => {
    const { user_id: userId } = parseParams(IdentityUserParams, req.params);
    const { reason } = parseBody(IdentityRevocationInput, req.body ?? {});
    res.json({ revoked: await revokeUserIdentityCertificates(ctx.knex, principalOf(req).orgId, userId, reason ?? 'privilegeWithdrawn') });
  });

  return router;
}
