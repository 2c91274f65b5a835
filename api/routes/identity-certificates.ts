import { Router } from 'express';
import { authenticate, requirePermission, requireUser } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { IdentityRevocationInput, IdentityUserParams } from '../schemas/identity-certificates.js';
import { issueMyIdentityCertificate, myIdentityCertificates, revokeUserIdentityCertificates } from '../services/identity-certificates.js';
import { parseBody, parseParams } from '../validation.js';

/**
 * People's identity certificates (CAWG identity): a signed-in user's own (/auth/me/identity-certificate), and an
 * admin's revocation of a user's (/org/users/{user_id}/identity-certificate/revoke). Issued and revoked by the scheduler.
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

  router.post('/org/users/:user_id/identity-certificate/revoke', auth, requirePermission('org:users'), async (req, res) => {
    const { user_id: userId } = parseParams(IdentityUserParams, req.params);
    const { reason } = parseBody(IdentityRevocationInput, req.body ?? {});
    res.json({ revoked: await revokeUserIdentityCertificates(ctx.knex, principalOf(req).orgId, userId, reason ?? 'privilegeWithdrawn') });
  });

  return router;
}
