import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { orgSigningCertificateStatus, rotateOrgSigningCertificate } from '../services/certificates.js';

/** Admins: the organisation's own signing certificate (GET) and a new one (POST .../rotate). Mount at /org/signing-certificate. */
export function orgSigningCertificateRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.get('/', auth, requirePermission('org:signing-certificate'), async (req, res) => {
    const status = await orgSigningCertificateStatus(ctx.knex, principalOf(req).orgId);
    res.set('Cache-Control', 'private, no-cache');
    res.json(status);
  });

  router.post('/rotate', auth, requirePermission('org:signing-certificate'), async (req, res) => {
    // Issued by the scheduler, which holds the CA keys; this role only asks and waits for the answer.
    const outcome = await rotateOrgSigningCertificate(ctx.knex, principalOf(req).orgId);
    if (outcome.status === 'pending') throw new ApiError('unavailable', 'issuance_pending', 'the certificate is requested but not issued yet (the scheduler issues certificates); it will be, check GET /org/signing-certificate', { retryAfterSeconds: 30 });
    if (outcome.status === 'failed') {
      if (outcome.code === 'vault_unavailable') throw new ApiError('unavailable', 'vault_unavailable', 'the key vault could not be reached; try again shortly', { retryAfterSeconds: 5 });
      throw new ApiError('unavailable', 'no_issuing_ca', outcome.message, { retryAfterSeconds: 60 });
    }
    if (outcome.status === 'unusable') throw new ApiError('unavailable', 'no_signing_certificate', 'the new certificate is not usable');
    res.status(201).json(outcome.certificate);
  });

  return router;
}
