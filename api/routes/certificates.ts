import { Router } from 'express';
import { Certificate } from '../../shared/db/models/certificate.js';
import { currentSigningChain, type SigningChain } from '../../shared/pki/certificate-store.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
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

/** A signing chain as the API shows it: the leaf's facts, PEMs of leaf and sub-CA, and the root (the trust anchor). */
export async function signingChainView(ctx: AppContext, chain: SigningChain) {
  const root = chain.subCa.issuer_id ? await Certificate.query(ctx.knex).findById(chain.subCa.issuer_id) : undefined;
  const leaf = view(chain.leaf);
  const subCa = view(chain.subCa);
  return {
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
  };
}

/** The caller's organisation's signing certificate: what its files are signed with, so its clients can check them. */
export function certificatesRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/v1/certificates/signing', authenticate(ctx.passport), requirePermission('media:read'), async (req, res) => {
    const chain = await currentSigningChain(ctx.knex, new Date(), 'leaf', principalOf(req).orgId);
    if (!chain) throw new ApiError(503, 'no_signing_certificate', 'the organisation has no valid signing certificate (it is issued with the first signature, or an admin rotates a revoked one)');
    // Changes only on rotation or revocation: clients revalidate (Express adds an ETag) rather than cache blindly.
    res.set('Cache-Control', 'private, no-cache');
    res.json(await signingChainView(ctx, chain));
  });

  return router;
}
