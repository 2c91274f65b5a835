/**
 * Verifying files: a signed-in caller's (verifyMedia) and everyone's (verifyPublicly, whose result is kept by the
 * file's SHA-256 for its permalink, publicVerification, when it is what the file alone proves). The file itself is
 * never kept.
 */
import { open, readFile } from 'node:fs/promises';
import { C2paError } from '../../shared/c2pa/errors.js';
import { looksLikeManifestStore } from '../../shared/c2pa/manifest-store-label.js';
import { MANIFEST_STORE_TYPE } from '../../shared/c2pa/reader-open.js';
import { chainReaderFor } from '../../shared/chain/readers.js';
import { findPublicVerification, savePublicVerification } from '../../shared/db/repositories/public-verifications.js';
import { identifyMedia } from '../../shared/media/formats.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { verifyAnchor } from '../media/anchor-verification.js';
import type { Config } from '../../shared/config.js';
import { assertWithinUploadLimit, type PartsSpec } from '../media/multipart-file.js';
import { currentPublicResult, provenByFileAlone } from '../media/permalink.js';
import { recoverByFingerprint, RECOVERY_NOTE } from '../media/recovery.js';
import type { RemoteManifestSource } from '../media/remote-manifest.js';
import { crJsonOfStaged, verifyStagedFile, type VerifiedType } from '../media/verification.js';

/** What verification needs of the process; remote manifests as fetched for the caller (RemoteManifests.forClient). */
type VerificationContext = Pick<AppContext, 'knex' | 'config' | 'verifyPool'> & { remoteManifests: RemoteManifestSource };

/**
 * c2pa-rs could not read the file at all (it reports a hash or signature mismatch as Invalid, but throws on a file it
 * cannot parse). A damaged file (truncated, a box or chunk out of bounds: the upload's structure walk tells) is a 400
 * naming what is wrong; a sound file whose C2PA data is unreadable is a 422. Never a server error.
 */
async function unreadable(err: unknown, tempPath: string, mimeType: VerifiedType): Promise<never> {
  if (!(err instanceof C2paError)) throw err;
  if (mimeType !== MANIFEST_STORE_TYPE) await identifyMedia(tempPath, { checkStructure: true });
  throw new ApiError('unprocessable', 'unreadable_credentials', `the file's Content Credentials cannot be read (${err.message})`);
}

/**
 * What signed-in POST /v1/media/verify takes: one part `file` (and optionally its sidecar `manifest`), or a fragmented
 * MP4 rendition: one part `init` and up to MAX_RENDITION_FRAGMENTS parts `fragment`, in order.
 */
export function verifyPartsSpec(config: Pick<Config, 'maxRenditionFragments'>, maxBytes: number): PartsSpec {
  return {
    parts: { file: 1, manifest: 1, init: 1, fragment: config.maxRenditionFragments },
    maxPartBytes: maxBytes,
    maxTotalBytes: maxBytes,
    expected: `one file part named "file" and at most one named "manifest", or a rendition: one part "init" and 1 to ${config.maxRenditionFragments} parts "fragment"`,
  };
}

/** What a verification is sent: the file and, optionally, its detached manifest store (multipart part `manifest`). */
export interface VerifyUpload {
  staged: StagedFile;
  manifest?: StagedFile;
}

/**
 * Who asks: a signed-in caller's organisation (`ownOrgId`: its own trust anchors apply, /org/trust-anchors, and
 * recovery also finds its non-discoverable files), and the signal that aborts when the caller goes away (its work in
 * the verification pool is then dropped or stopped).
 */
export interface VerifyRequest {
  ownOrgId?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** A manifest store alone (a .c2pa sidecar, by its JUMBF boxes), or a file of a type the service signs (by content). */
async function verifiedTypeOf(tempPath: string): Promise<VerifiedType> {
  const handle = await open(tempPath, 'r');
  const head = new Uint8Array(16);
  try {
    await handle.read(head, 0, 16, 0);
  } finally {
    await handle.close();
  }
  if (looksLikeManifestStore(head)) return MANIFEST_STORE_TYPE;
  return (await identifyMedia(tempPath, { checkStructure: false })).mimeType;
}

/** The file's type (within its kind's limit) and the sidecar's bytes, each checked for what it must be. */
async function uploadParts(ctx: VerificationContext, { staged, manifest }: VerifyUpload): Promise<{ mimeType: VerifiedType; sidecar: Uint8Array | undefined }> {
  const mimeType = await verifiedTypeOf(staged.tempPath);
  // Within its kind's limit (the public route stages at most MAX_UPLOAD_BYTES, so this matters to signed-in callers).
  assertWithinUploadLimit(ctx.config, mimeType, staged.size);
  if (!manifest) return { mimeType, sidecar: undefined };
  if (mimeType === MANIFEST_STORE_TYPE) throw new ApiError('invalid', 'asset_required', 'the part "file" must be the asset when a part "manifest" (its manifest store) is sent');
  const sidecar = new Uint8Array(await readFile(manifest.tempPath));
  if (!looksLikeManifestStore(sidecar)) throw new ApiError('unsupported', 'not_a_manifest_store', 'the part "manifest" must be a C2PA manifest store (.c2pa, application/c2pa)');
  return { mimeType, sidecar };
}

/**
 * A staged file's verdict: its manifest's (embedded, the sidecar sent with it, or the remote one it names; checked
 * against the trust in use and revocation data, and its on-chain anchor) or, for a file
 * without one, the manifests recovered by its fingerprint. A manifest store sent alone gets its own report.
 */
export async function verifyMedia(ctx: VerificationContext, upload: VerifyUpload, { ownOrgId, signal }: VerifyRequest = {}) {
  const { staged } = upload;
  const { tempPath, sha256 } = staged;
  const { mimeType, sidecar } = await uploadParts(ctx, upload);
  const [verified, anchor] = await Promise.all([
    verifyStagedFile(ctx, staged, mimeType, { sidecar, orgId: ownOrgId, signal }).catch((err: unknown) => unreadable(err, tempPath, mimeType)),
    verifyAnchor(ctx.knex, ctx.config.baseUrl, sha256, chainReaderFor(ctx.config)),
  ]);
  // An image without credentials comes back with its fingerprint: the manifests it recovers.
  const recovered = verified.fingerprint ? await recoverByFingerprint(ctx, verified.fingerprint, { ownOrgId, signal }) : [];
  return {
    ...verified.view,
    anchor,
    fingerprint: verified.fingerprint?.iscc ?? null,
    recovered,
    recovered_note: recovered.length ? RECOVERY_NOTE : null,
    checked_at: new Date().toISOString(),
  };
}

/**
 * c2pa-rs's crJSON report of what was sent (the file, the sidecar with it, a store alone, or the file's remote
 * manifest), under the trust settings verification uses, as c2pa-rs writes it. Where c2pa-rs writes none (no
 * manifest, one it refuses, a remote one not fetched), a 422 says why; the JSON verdict (format=json) has the
 * status code.
 */
export async function crJsonReport(ctx: VerificationContext, upload: VerifyUpload, { ownOrgId, signal }: VerifyRequest = {}): Promise<string> {
  const { mimeType, sidecar } = await uploadParts(ctx, upload);
  const result = await crJsonOfStaged(ctx, upload.staged, mimeType, { sidecar, orgId: ownOrgId, signal }).catch((err: unknown) => unreadable(err, upload.staged.tempPath, mimeType));
  if (typeof result === 'string') return result;
  if (result === undefined) throw new ApiError('unprocessable', 'no_credentials', 'the file carries no C2PA manifest: there is no crJSON report of it');
  if ('refused' in result) throw new ApiError('unprocessable', 'unreadable_credentials', `c2pa-rs writes no crJSON for this manifest (${result.refused})`);
  throw new ApiError('unprocessable', 'manifest_inaccessible', result.inaccessible);
}

/**
 * Verification for everyone, no account: verifyMedia's verdict, kept by the file's SHA-256 for its permalink when it
 * is what the file alone proves (provenByFileAlone; `kept` says whether it was). A verdict read from a sidecar sent
 * with the file, or from the remote manifest its URL names, is answered but not kept: the permalink of a file is
 * what anyone holding the file gets, not what one caller's manifest made of it.
 */
export async function verifyPublicly(ctx: VerificationContext, upload: VerifyUpload, signal?: AbortSignal) {
  const result = await verifyMedia(ctx, upload, { signal });
  const kept = provenByFileAlone(result);
  if (kept) await savePublicVerification(upload.staged.sha256, result, ctx.knex);
  return { result, kept };
}

/**
 * The last public verification of a file, brought up to date: discoverability, revocation and anchors are judged
 * again now, not served as they were. 404 when none is kept, or it may no longer be shown.
 */
export async function publicVerification(ctx: Pick<AppContext, 'knex' | 'config' | 'verifyPool'>, sha256: string): Promise<Record<string, unknown>> {
  const stored = await findPublicVerification(sha256, ctx.knex);
  // One kept before only the file alone counted (a sidecar's or remote manifest's verdict) is not shown.
  if (!stored || !provenByFileAlone(stored)) throw notFound('verification');
  const result = await currentPublicResult(ctx.knex, ctx.verifyPool, ctx.config, sha256, stored);
  if (!result) throw notFound('verification');
  return result;
}
