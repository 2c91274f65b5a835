import { Router } from 'express';
import { Certificate } from '../../shared/db/models/certificate.js';
import { currentSigningChain } from '../../shared/pki/certificate-store.js';
import { derToPem } from '../../shared/pki/pem.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors.js';

function view(c: Certificate) {
  return {
    role: c.role,
    serial: c.serial,
    subject: c.subject,
    issuer: c.issuer,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    pem: derToPem(c.der),
  };
}

/** Public trust information: what the service signs with, so anyone can check a signed file. Mount at the root. */
export function certificatesRouter(ctx: AppContext): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/certificates/signing:
   *   get:
   *     tags: [Trust]
   *     summary: The current signing certificate and its chain (public, no authentication)
   *     description: >-
   *       The leaf certificate that signs C2PA manifests now, the sub-CA that issued it (chain_pem holds both, leaf
   *       first, as embedded in signed files) and the root CA to use as trust anchor. Revocation is published at the
   *       CRL and OCSP addresses inside the certificates.
   *     responses:
   *       200:
   *         description: The signing certificate
   *         content:
   *           application/json:
   *             schema:
   *               type: object
   *               required: [serial, subject, issuer, not_before, not_after, fingerprint_sha256, certificate_pem, chain_pem, chain]
   *               properties:
   *                 serial: { type: string, description: 'lowercase hex', example: 3f2a9c0d4e5b6a7f8091a2b3c4d5e6f7 }
   *                 subject: { type: string, example: 'CN=Media Signing Service C2PA Signing,O=Media Signing Service' }
   *                 issuer: { type: string }
   *                 not_before: { type: string, format: date-time }
   *                 not_after: { type: string, format: date-time }
   *                 fingerprint_sha256: { type: string, description: 'SHA-256 of the DER certificate, lowercase hex' }
   *                 certificate_pem: { type: string, description: 'the leaf certificate, PEM' }
   *                 chain_pem: { type: string, description: 'leaf then sub-CA, PEM' }
   *                 chain:
   *                   type: array
   *                   description: leaf, then sub-CA
   *                   items: { $ref: '#/components/schemas/TrustCertificate' }
   *                 root:
   *                   description: the trust anchor (null if its record is missing)
   *                   nullable: true
   *                   allOf: [{ $ref: '#/components/schemas/TrustCertificate' }]
   *       503:
   *         description: No valid signing certificate (the operator has to run `npm run pki -- init` or rotate-leaf)
   *         content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } }
   * components:
   *   schemas:
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
  router.get('/v1/certificates/signing', async (_req, res) => {
    const chain = await currentSigningChain(ctx.knex, new Date());
    if (!chain) throw new ApiError(503, 'no_signing_certificate', 'the service has no valid signing certificate');
    const root = chain.subCa.issuer_id ? await Certificate.query(ctx.knex).findById(chain.subCa.issuer_id) : undefined;
    const leaf = view(chain.leaf);
    const subCa = view(chain.subCa);
    // Changes only on rotation or revocation: clients revalidate (Express adds an ETag) rather than cache blindly.
    res.set('Cache-Control', 'no-cache');
    res.json({
      serial: leaf.serial,
      subject: leaf.subject,
      issuer: leaf.issuer,
      not_before: leaf.not_before,
      not_after: leaf.not_after,
      fingerprint_sha256: leaf.fingerprint_sha256,
      certificate_pem: leaf.pem,
      chain_pem: leaf.pem + subCa.pem,
      chain: [leaf, subCa],
      root: root ? view(root) : null,
    });
  });

  return router;
}
