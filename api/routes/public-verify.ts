import { Router } from 'express';
import { C2paError } from '../../shared/c2pa/errors.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import { assertWithinUploadLimit } from '../media/multipart-file.js';
import { recoverByFingerprint, RECOVERY_NOTE } from '../media/recovery.js';
import { currentPublicResult } from '../media/permalink.js';
import { verifyStagedFile } from '../media/verification.js';
import type { RateLimiters } from '../rate-limit.js';
import { mediaRejection } from './uploads.js';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * c2pa-rs could not read the file at all (it reports a hash or signature mismatch as Invalid, but throws on a file it
 * cannot parse). A damaged file (truncated, a box or chunk out of bounds: the upload's structure walk tells) is a 400
 * naming what is wrong; a sound file whose C2PA data is unreadable is a 422. Never a server error.
 */
async function unreadable(err: unknown, tempPath: string): Promise<never> {
  if (!(err instanceof C2paError)) throw err;
  await identifyMedia(tempPath, { checkStructure: true });
  throw new ApiError(422, 'unreadable_credentials', `the file's Content Credentials cannot be read (${err.message})`);
}

/**
 * Verification for everyone, no account: the embedded manifest's verdict (what the file itself says, checked against
 * the service's roots and revocation data, and its on-chain anchor) or, for a file without one, the manifests
 * recovered by its fingerprint. The result is kept by the file's SHA-256 for its permalink; the file is not kept.
 * `ownOrgId`: a signed-in caller also finds its own organisation's non-discoverable files.
 */
export async function verifyWithRecovery(ctx: AppContext, staged: StagedFile, ownOrgId?: string) {
  const { tempPath, sha256, size } = staged;
  const { mimeType } = await identifyMedia(tempPath, { checkStructure: false });
  // Within its kind's limit (the public route stages at most MAX_UPLOAD_BYTES, so this matters to signed-in callers).
  assertWithinUploadLimit(ctx.config, mimeType, size);
  const [verified, anchor] = await Promise.all([
    verifyStagedFile(ctx.knex, ctx.verifyPool, ctx.config, staged, mimeType).catch((err: unknown) => unreadable(err, tempPath)),
    verifyAnchor(ctx.knex, ctx.config.baseUrl, sha256, chainReaderFor(ctx.config)),
  ]);
  // An image without credentials comes back with its fingerprint: the manifests it recovers.
  const recovered = verified.fingerprint ? await recoverByFingerprint(ctx.knex, ctx.verifyPool, ctx.config.baseUrl, verified.fingerprint, { ownOrgId }) : [];
  return {
    ...verified.view,
    anchor,
    fingerprint: verified.fingerprint?.iscc ?? null,
    recovered,
    recovered_note: recovered.length ? RECOVERY_NOTE : null,
    checked_at: new Date().toISOString(),
  };
}

export function publicVerifyRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/verify:
   *   post:
   *     tags: [Public verification]
   *     summary: "Verify any image without an account: its embedded Content Credentials, or the ones recovered by its fingerprint"
   *     description: "For a file with an embedded manifest: what POST /v1/media/verify answers (c2pa-rs verdict against the service's roots, signer, revocation, on-chain anchor). For a file without one: `recovered`, the manifests of discoverable signed files whose ISCC Image-Code (io.iscc.v0) is within 12 bits of the file's, nearest first, each with its manifest, signer, anchor and Hamming distance, marked recovered_by fingerprint and bound_to_file false: they are not bound to these bytes. The result is kept by the file's SHA-256 for its permalink (GET /v1/verify/{sha256}); nothing else about the file is kept. The file is read, decoded and fingerprinted in the verification pool (503 verification_busy with Retry-After when it is full); an image declaring more than MAX_IMAGE_PIXELS pixels is refused from its header (422 image_too_large). Rate limited per client (PUBLIC_RATE_LIMIT per minute, and PUBLIC_CONCURRENCY_PER_ADDRESS requests in flight: 429 too_many_concurrent_requests)."
   *     requestBody:
   *       required: true
   *       content:
   *         multipart/form-data: { schema: { type: object, required: [file], properties: { file: { type: string, format: binary } } } }
   *         image/*: { schema: { type: string, format: binary } }
   *     responses:
   *       200: { description: The verdict, content: { application/json: { schema: { $ref: '#/components/schemas/PublicVerification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       422: { $ref: '#/components/responses/UnreadableCredentials' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   *       503: { $ref: '#/components/responses/VerificationBusy' }
   */
  router.post('/verify', limits.publicApi, limits.publicConcurrency, async (req, res) => {
    const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      const result = await verifyWithRecovery(ctx, staged);
      await ctx.knex('public_verifications')
        .insert({ sha256: staged.sha256, result: JSON.stringify(result), updated_at: new Date() })
        .onConflict('sha256')
        .merge(['result', 'updated_at']);
      res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${staged.sha256}` });
    } catch (err) {
      throw err instanceof MediaRejectedError ? mediaRejection(err) : err;
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  /**
   * @openapi
   * /v1/verify/{sha256}:
   *   get:
   *     tags: [Public verification]
   *     summary: "The last public verification of a file, by its SHA-256 (the permalink of the verify page)"
   *     description: "What POST /v1/verify answered for a file with this hash, and when (checked_at), brought up to date as it is read: recovered manifests are looked up again by the stored fingerprint (a file no longer discoverable is not shown), and the signer's revocation and the file's anchor are read again. Only files someone verified publicly are known here; a file the service signed for an organisation that has since made it non-discoverable is 404."
   *     parameters:
   *       - { name: sha256, in: path, required: true, schema: { type: string, pattern: '^[0-9a-f]{64}$' } }
   *     responses:
   *       200: { description: The stored verdict, content: { application/json: { schema: { $ref: '#/components/schemas/PublicVerification' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.get('/verify/:sha256', limits.publicApi, async (req, res) => {
    const sha256 = String(req.params.sha256).toLowerCase();
    if (!SHA256.test(sha256)) throw badRequest('sha256 must be 64 hexadecimal digits', 'invalid_parameter');
    const row = (await ctx.knex('public_verifications').where({ sha256 }).first('result')) as { result: unknown } | undefined;
    if (!row) throw notFound('verification');
    const stored = typeof row.result === 'string' ? (JSON.parse(row.result) as Record<string, unknown>) : (row.result as Record<string, unknown>);
    // Discoverability, revocation and anchors are judged again now, not served as they were.
    const result = await currentPublicResult(ctx.knex, ctx.verifyPool, ctx.config, sha256, stored);
    if (!result) throw notFound('verification');
    res.json({ ...result, permalink: `${ctx.config.baseUrl}/verify#${sha256}` });
  });

  return router;
}
