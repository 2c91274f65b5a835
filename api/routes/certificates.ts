import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { currentOrgSigningCertificate } from '../services/certificates.js';

/** The caller's organisation's signing certificate: what its files are signed with, so its clients can check them. */
export function certificatesRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/v1/certificates/signing', authenticate(ctx.passport), requirePermission('media:read'), async (req, res) => {
    const certificate = await currentOrgSigningCertificate(ctx.knex, principalOf(req).orgId);
    if (!certificate) throw new ApiError('unavailable', 'no_signing_certificate', 'the organisation has no valid signing certificate (it is issued with the first signature, or an admin rotates a revoked one)');
    // Changes only on rotation or revocation: clients revalidate (Express adds an ETag) rather than cache blindly.
    res.set('Cache-Control', 'private, no-cache');
    res.json(certificate);
  });

  return router;
}
