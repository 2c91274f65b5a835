import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { ChainInput, ExternalRequestInput, ExternalRequestParams, RevocationInput } from '../schemas/certificates.js';
import { orgSigningCertificateStatus, rotateOrgSigningCertificate } from '../services/certificates.js';
import { acceptChain, createExternalRequest, getExternalRequest, listExternalRequestViews, recordRevocation, withdrawRequest } from '../services/external-certificates.js';
import { parseBody, parseParams } from '../validation.js';

/**
 * Admins: the organisation's own signing certificate (GET), a new one from the service CA (POST .../rotate), and one
 * from an external CA (.../requests: a key and CSR, then the CA's chain). Mount at /org/signing-certificate.
 */
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
    const outcome = await rotateOrgSigningCertificate(ctx.knex, principalOf(req).orgId, actorOf(principalOf(req)));
    if (outcome.status === 'pending') throw new ApiError('unavailable', 'issuance_pending', 'the certificate is requested but not issued yet (the scheduler issues certificates); it will be, check GET /org/signing-certificate', { retryAfterSeconds: 30 });
    if (outcome.status === 'failed') {
      if (outcome.code === 'vault_unavailable') throw new ApiError('unavailable', 'vault_unavailable', 'the key vault could not be reached; try again shortly', { retryAfterSeconds: 5 });
      throw new ApiError('unavailable', 'no_issuing_ca', outcome.message, { retryAfterSeconds: 60 });
    }
    if (outcome.status === 'unusable') throw new ApiError('unavailable', 'no_signing_certificate', 'the new certificate is not usable');
    res.status(201).json(outcome.certificate);
  });

  const admin = [auth, requirePermission('org:signing-certificate')];

  router.post('/requests', ...admin, async (req, res) => {
    const subject = parseBody(ExternalRequestInput, req.body);
    res.status(201).json(await createExternalRequest(ctx.knex, ctx.config, principalOf(req).orgId, subject));
  });

  router.get('/requests', ...admin, async (req, res) => {
    res.set('Cache-Control', 'private, no-cache');
    res.json({ requests: await listExternalRequestViews(ctx.knex, principalOf(req).orgId) });
  });

  router.get('/requests/:request_id', ...admin, async (req, res) => {
    res.set('Cache-Control', 'private, no-cache');
    res.json(await getExternalRequest(ctx.knex, principalOf(req).orgId, parseParams(ExternalRequestParams, req.params).request_id));
  });

  router.post('/requests/:request_id/chain', ...admin, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    const { chain_pem: chainPem } = parseBody(ChainInput, req.body);
    res.json(await acceptChain(ctx, principalOf(req).orgId, id, chainPem));
  });

  router.post('/requests/:request_id/withdraw', ...admin, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    res.json(await withdrawRequest(ctx.knex, principalOf(req).orgId, id));
  });

  router.post('/requests/:request_id/revoked', ...admin, async (req, res) => {
    const { request_id: id } = parseParams(ExternalRequestParams, req.params);
    const { reason, revoked_at: revokedAt } = parseBody(RevocationInput, req.body);
    res.json(await recordRevocation(ctx.knex, principalOf(req).orgId, id, reason, revokedAt ? new Date(revokedAt) : undefined));
  });

  return router;
}
