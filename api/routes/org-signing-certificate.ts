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

  /**
   * @openapi
   * /org/signing-certificate:
   *   get:
   *     tags: [Organisation]
   *     summary: "The organisation's signing certificate (with its chain) and every certificate it had"
   *     description: "status: valid (it signs), not_issued (the next signature issues one: an organisation from before per-organisation certificates, or its certificate expired), revoked (rotate to sign again), no_issuing_ca (the operator has to run pki init)."
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       200:
   *         description: The certificate state
   *         content:
   *           application/json:
   *             schema:
   *               type: object
   *               properties:
   *                 status: { type: string, enum: [valid, not_issued, revoked, no_issuing_ca] }
   *                 current: { nullable: true, allOf: [{ $ref: '#/components/schemas/SigningCertificate' }] }
   *                 certificates:
   *                   type: array
   *                   description: newest first
   *                   items:
   *                     type: object
   *                     properties:
   *                       serial: { type: string }
   *                       subject: { type: string }
   *                       not_before: { type: string, format: date-time }
   *                       not_after: { type: string, format: date-time }
   *                       status: { type: string, enum: [valid, revoked, expired, not_yet_valid] }
   *                       revoked_at: { type: string, format: date-time, nullable: true }
   *                       revocation_reason: { type: string, nullable: true }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   */
  router.get('/', auth, requirePermission('org:signing-certificate'), async (req, res) => {
    const status = await orgSigningCertificateStatus(ctx.knex, principalOf(req).orgId);
    res.set('Cache-Control', 'private, no-cache');
    res.json(status);
  });

  /**
   * @openapi
   * /org/signing-certificate/rotate:
   *   post:
   *     tags: [Organisation]
   *     summary: "Issue the organisation a new signing certificate with a new vault key; it signs from now on"
   *     description: "The previous certificate is not revoked: files signed with it stay valid (an operator revokes a compromised one with the pki CLI). The subject carries the organisation's current name."
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       201: { description: The new certificate, content: { application/json: { schema: { $ref: '#/components/schemas/SigningCertificate' } } } }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       503: { description: "No issuing CA, the key vault is unavailable, or the scheduler (which issues certificates) has not answered within 15 s (issuance_pending: the request stands)", content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } } }
   */
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
