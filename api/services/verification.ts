/**
 * Verifying files: a signed-in caller's (verifyMedia) and everyone's (verifyPublicly, whose result is kept by the
 * file's SHA-256 for its permalink, publicVerification). The file itself is never kept.
 */
import { C2paError } from '../../shared/c2pa/errors.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { findPublicVerification, savePublicVerification } from '../../shared/db/repositories/public-verifications.js';
import { identifyMedia } from '../../shared/media/formats.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import { assertWithinUploadLimit } from '../media/multipart-file.js';
import { currentPublicResult } from '../media/permalink.js';
import { recoverByFingerprint, RECOVERY_NOTE } from '../media/recovery.js';
import { verifyStagedFile } from '../media/verification.js';

type VerificationContext = Pick<AppContext, 'knex' | 'config' | 'verifyPool'>;

/**
 * c2pa-rs could not read the file at all (it reports a hash or signature mismatch as Invalid, but throws on a file it
 * cannot parse). A damaged file (truncated, a box or chunk out of bounds: the upload's structure walk tells) is a 400
 * naming what is wrong; a sound file whose C2PA data is unreadable is a 422. Never a server error.
 */
async function unreadable(err: unknown, tempPath: string): Promise<never> {
  if (!(err instanceof C2paError)) throw err;
  await identifyMedia(tempPath, { checkStructure: true });
  throw new ApiError('unprocessable', 'unreadable_credentials', `the file's Content Credentials cannot be read (${err.message})`);
}

/**
 * A staged file's verdict: the embedded manifest's (what the file itself says, checked against the trust in use and
 * the service's revocation data, and its on-chain anchor) or, for a file without one, the manifests recovered by its
 * fingerprint. `ownOrgId`: a signed-in caller's organisation, whose own trust anchors then apply and whose
 * non-discoverable files recovery also finds.
 */
export async function verifyMedia(ctx: VerificationContext, staged: StagedFile, ownOrgId?: string) {
  const { tempPath, sha256, size } = staged;
  const { mimeType } = await identifyMedia(tempPath, { checkStructure: false });
  // Within its kind's limit (the public route stages at most MAX_UPLOAD_BYTES, so this matters to signed-in callers).
  assertWithinUploadLimit(ctx.config, mimeType, size);
  const [verified, anchor] = await Promise.all([
    verifyStagedFile(ctx.knex, ctx.verifyPool, ctx.config, staged, mimeType, ownOrgId).catch((err: unknown) => unreadable(err, tempPath)),
    verifyAnchor(ctx.knex, ctx.config.baseUrl, sha256, chainReaderFor(ctx.config)),
  ]);
  // An image without credentials comes back with its fingerprint: the manifests it recovers.
  const recovered = verified.fingerprint ? await recoverByFingerprint(ctx, verified.fingerprint, { ownOrgId }) : [];
  return {
    ...verified.view,
    anchor,
    fingerprint: verified.fingerprint?.iscc ?? null,
    recovered,
    recovered_note: recovered.length ? RECOVERY_NOTE : null,
    checked_at: new Date().toISOString(),
  };
}

/** Verification for everyone, no account: verifyMedia's verdict, kept by the file's SHA-256 for its permalink. */
export async function verifyPublicly(ctx: VerificationContext, staged: StagedFile) {
  const result = await verifyMedia(ctx, staged);
  await savePublicVerification(staged.sha256, result, ctx.knex);
  return result;
}

/**
 * The last public verification of a file, brought up to date: discoverability, revocation and anchors are judged
 * again now, not served as they were. 404 when none is kept, or it may no longer be shown.
 */
export async function publicVerification(ctx: VerificationContext, sha256: string): Promise<Record<string, unknown>> {
  const stored = await findPublicVerification(sha256, ctx.knex);
  if (!stored) throw notFound('verification');
  const result = await currentPublicResult(ctx.knex, ctx.verifyPool, ctx.config, sha256, stored);
  if (!result) throw notFound('verification');
  return result;
}
