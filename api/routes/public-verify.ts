import { Router } from 'express';
import { C2paError } from '../../shared/c2pa/errors.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import { assertWithinUploadLimit } from '../media/multipart-file.js';
import { recoverByFingerprint, RECOVERY_NOTE } from '../media/recovery.js';
import { currentPublicResult } from '../media/permalink.js';
import { verifyStagedFile } from '../media/verification.js';
import type { RateLimiters } from '../rate-limit.js';
import { VerificationParams } from '../schemas/verify.js';
import { parseParams } from '../validation.js';
import { mediaRejection } from './uploads.js';

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

  router.get('/verify/:sha256', limits.publicApi, async (req, res) => {
    const { sha256 } = parseParams(VerificationParams, req.params);
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
