import { Router } from 'express';
import { Certificate, certificateStatus } from '../../shared/db/models/certificate.js';
import { ISSUANCE_WAIT_MS, obtainOrgCertificate } from '../../shared/pki/certificate-requests.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { signingChainView } from './certificates.js';

/** Words for the organisation's state, as the API names it. */
const STATE = { ready: 'valid', issuable: 'not_issued', revoked: 'revoked', no_ca: 'no_issuing_ca' } as const;

/** Admins: the organisation's own signing certificate (GET) and a new one (POST .../rotate). Mount at /org/signing-certificate. */
export function orgSigningCertificateRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  router.get('/', auth, requirePermission('org:signing-certificate'), async (req, res) => {
    const { orgId } = principalOf(req);
    const [state, rows] = await Promise.all([
      orgSigningState(ctx.knex, orgId),
      Certificate.query(ctx.knex).where({ org_id: orgId, role: 'leaf' }).orderBy('created_at', 'desc').limit(100),
    ]);
    res.set('Cache-Control', 'private, no-cache');
    res.json({
      status: STATE[state.state],
      current: state.state === 'ready' ? await signingChainView(ctx, state.chain) : null,
      certificates: rows.map((c) => ({
        serial: c.serial,
        subject: c.subject,
        not_before: c.not_before.toISOString(),
        not_after: c.not_after.toISOString(),
        status: certificateStatus(c),
        revoked_at: c.revoked_at?.toISOString() ?? null,
        revocation_reason: c.revocation_reason,
      })),
    });
  });

  router.post('/rotate', auth, requirePermission('org:signing-certificate'), async (req, res) => {
    const { orgId } = principalOf(req);
    // Issued by the scheduler, which holds the CA keys; this role only asks and waits for the answer.
    const outcome = await obtainOrgCertificate(ctx.knex, orgId, 'rotate', ISSUANCE_WAIT_MS);
    if (outcome.status === 'pending') throw new ApiError(503, 'issuance_pending', 'the certificate is requested but not issued yet (the scheduler issues certificates); it will be, check GET /org/signing-certificate', { 'Retry-After': '30' });
    if (outcome.status === 'failed') {
      if (outcome.code === 'vault_unavailable') throw new ApiError(503, 'vault_unavailable', 'the key vault could not be reached; try again shortly', { 'Retry-After': '5' });
      throw new ApiError(503, 'no_issuing_ca', outcome.message, { 'Retry-After': '60' });
    }
    const state = await orgSigningState(ctx.knex, orgId);
    if (state.state !== 'ready') throw new ApiError(503, 'no_signing_certificate', 'the new certificate is not usable');
    res.status(201).json(await signingChainView(ctx, state.chain));
  });

  return router;
}
