import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';
import { currentOrgSigningCertificate } from '../services/certificates.js';

/** The caller's organisation's signing certificate: what its files are signed with, so its clients can check them. */
export function certificatesRouter(ctx: AppContext): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/certificates/signing:
   *   get:
   *     tags: [Trust]
   *     summary: "The caller's organisation's current signing certificate and its chain"
   *     description: "Each organisation signs with its own certificate (subject O and CN: the organisation's name), issued by the service's sub-CA. An organisation from before per-organisation certificates has one once it signs its first file."
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     responses:
   *       200:
   *         description: The signing certificate
   *         content:
   *           application/json:
   *             schema: { $ref: '#/components/schemas/SigningCertificate' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       503:
   *         description: "The organisation has no valid signing certificate (not issued yet, revoked, or no issuing CA)"
   *         content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } }
   * components:
   *   schemas:
   *     SigningCertificate:
   *       type: object
   *       required: [serial, subject, issuer, not_before, not_after, fingerprint_sha256, certificate_pem, chain_pem, chain]
   *       properties:
   *         serial: { type: string, description: 'lowercase hex', example: 3f2a9c0d4e5b6a7f8091a2b3c4d5e6f7 }
   *         subject: { type: string, example: 'CN=Daily Planet,O=Daily Planet' }
   *         issuer: { type: string }
   *         not_before: { type: string, format: date-time }
   *         not_after: { type: string, format: date-time }
   *         fingerprint_sha256: { type: string, description: 'SHA-256 of the DER certificate, lowercase hex' }
   *         certificate_pem: { type: string, description: 'the leaf certificate, PEM' }
   *         chain_pem: { type: string, description: 'leaf then sub-CA, PEM' }
   *         chain:
   *           type: array
   *           description: leaf, then sub-CA
   *           items: { $ref: '#/components/schemas/TrustCertificate' }
   *         root:
   *           description: the trust anchor (null if its record is missing)
   *           nullable: true
   *           allOf: [{ $ref: '#/components/schemas/TrustCertificate' }]
   *     TrustCertificate:
   *       type: object
   *       properties:
   *         role: { type: string, enum: [root, sub_ca, leaf, tsa] }
   *         serial: { type: string }
   *         subject: { type: string }
   *         issuer: { type: string }
   *         not_before: { type: string, format: date-time }
   *         not_after: { type: string, format: date-time }
   *         fingerprint_sha256: { type: string }
   *         pem: { type: string }
   */
  router.get('/v1/certificates/signing', authenticate(ctx.passport), requirePermission('media:read'), async (req, res) => {
    const certificate = await currentOrgSigningCertificate(ctx.knex, principalOf(req).orgId);
    if (!certificate) throw new ApiError('unavailable', 'no_signing_certificate', 'the organisation has no valid signing certificate (it is issued with the first signature, or an admin rotates a revoked one)');
    // Changes only on rotation or revocation: clients revalidate (Express adds an ETag) rather than cache blindly.
    res.set('Cache-Control', 'private, no-cache');
    res.json(certificate);
  });

  return router;
}
