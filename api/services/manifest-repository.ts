/**
 * The public manifest repository (C2PA Soft Binding Resolution API): manifest ids matched by fingerprint, and a
 * discoverable manifest store with what it says and a thumbnail of what it signed.
 */
import { loadSharp } from '../../shared/media/sharp.js';
import { anchorViewForHash } from '../../shared/anchoring/views.js';
import { claimThumbnailOfStore } from '../../shared/c2pa/read-asset.js';
import { findServedManifest, servedManifestIdOf, type ServedManifest } from '../../shared/db/repositories/sign-jobs.js';
import { repositoryManifestUrl } from '../../shared/c2pa/remote-manifest.js';
import { formatFor, identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import { decodeImageCode, type ImageCode } from '../../shared/softbinding/iscc-codec.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { describeStoredManifests, findByFingerprint, signatureOf, similarityScore } from '../media/recovery.js';

type RepositoryContext = Pick<AppContext, 'knex' | 'config' | 'verifyPool' | 'files'>;

const THUMBNAIL_EDGE = 320;

export interface ManifestMatches {
  matches: Array<{ manifestId: string; similarityScore: number }>;
}

/** The C2PA query result for a fingerprint: manifest ids of discoverable files, nearest first, with a 0-100 score. */
export async function findManifestMatches(ctx: Pick<RepositoryContext, 'knex'>, code: ImageCode, limit: number): Promise<ManifestMatches> {
  const found = await findByFingerprint(ctx.knex, code, { limit });
  return { matches: found.map(({ match, stored }) => ({ manifestId: stored.manifest_id, similarityScore: similarityScore(match.distance) })) };
}

/**
 * findManifestMatches for an image itself: its ISCC Image-Code is computed in the verification pool (422
 * image_too_large over MAX_IMAGE_PIXELS, 400 corrupt_image when it cannot be decoded).
 */
export async function findManifestMatchesByContent(ctx: RepositoryContext, staged: StagedFile, limit: number, signal?: AbortSignal): Promise<ManifestMatches> {
  const format = await identifyMedia(staged.tempPath, { checkStructure: false });
  if (format.kind !== 'image') throw new MediaRejectedError('unsupported', `fingerprint queries take images; this is ${format.label}`);
  const { iscc } = await ctx.verifyPool.run('fingerprint', { filePath: staged.tempPath, mimeType: format.mimeType, maxPixels: ctx.config.maxImagePixels, fingerprintMode: ctx.config.fingerprintMode }, signal);
  return findManifestMatches(ctx, decodeImageCode(iscc), limit);
}

/**
 * A manifest store the repository serves and its signed file: a discoverable one, or a remote manifest (which its
 * file names); 404 for any other id (a non-discoverable embedded one does not exist publicly).
 */
export async function servedManifest(ctx: Pick<RepositoryContext, 'knex'>, manifestId: string): Promise<ServedManifest> {
  const row = await findServedManifest(manifestId, ctx.knex);
  if (!row) throw notFound('manifest');
  return row;
}

/**
 * The HTTP `Link` header value that tells a validator where a signed file's manifest store is (C2PA 2.2 §15.5.3.2):
 * the repository's GET /v1/manifests/{id}. Always for a remote manifest; for an embedded one, undefined when it is not
 * discoverable, as that URL would answer 404.
 */
export async function c2paManifestLink(ctx: Pick<RepositoryContext, 'knex' | 'config'>, file: { id: string } | { sha256: string }): Promise<string | undefined> {
  const manifestId = await servedManifestIdOf(file, ctx.knex);
  return manifestId === undefined ? undefined : `<${repositoryManifestUrl(ctx.config.baseUrl, manifestId)}>; rel="c2pa-manifest"`;
}

/**
 * What a discoverable manifest says (read in the verification pool): its signer and the signer's revocation status,
 * its signature (the hard binding cannot be checked without the original file), the signed file's hash and anchor.
 */
export async function describeManifest(ctx: RepositoryContext, row: ServedManifest) {
  const [described] = await describeStoredManifests(ctx, [new Uint8Array(row.store)]);
  const { report, signer, revocation } = described!;
  const kind = formatFor(row.mime_type)?.kind;
  return {
    manifest_id: row.manifest_id,
    manifest: report.manifest,
    signer,
    signature: signatureOf(report),
    status: report.status,
    timestamp: report.timestamp,
    revocation,
    signed_sha256: row.sha256,
    anchor: (await anchorViewForHash(ctx.knex, ctx.config.baseUrl, row.sha256)) ?? null,
    // Images are drawn from the signed file; video from the manifest's claim thumbnail, when it has one.
    thumbnail_url: kind === 'image' || (kind === 'video' && report.manifest?.thumbnail)
      ? `${repositoryManifestUrl(ctx.config.baseUrl, row.manifest_id)}/thumbnail`
      : null,
  };
}

/**
 * A JPEG, at most THUMBNAIL_EDGE px on its long side, of what a discoverable manifest signed: an image is drawn from
 * the signed file; a video is never read (hundreds of MiB sharp cannot draw): its manifest's claim thumbnail is the
 * picture. Audio has none (404).
 */
export async function manifestThumbnail(ctx: RepositoryContext, manifestId: string): Promise<Buffer> {
  const row = await servedManifest(ctx, manifestId);
  const kind = formatFor(row.mime_type)?.kind;
  let picture: Uint8Array;
  if (kind === 'image') picture = await ctx.files.read(row.storage_key);
  else if (kind === 'video') {
    const claim = await claimThumbnailOfStore(row.store);
    if (!claim) throw new ApiError('not_found', 'not_found', 'this video was signed without a claim thumbnail');
    picture = claim.bytes;
  } else throw new ApiError('not_found', 'not_found', 'this manifest belongs to an audio file: there is no thumbnail');
  const sharp = await loadSharp();
  return sharp(picture, { limitInputPixels: 100_000_000 })
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 75 })
    .toBuffer()
    .catch(() => {
      // An image format libvips cannot decode here (JPEG XL in sharp's prebuilt build): there is no thumbnail.
      throw new ApiError('not_found', 'not_found', 'no thumbnail can be drawn of this image format');
    });
}
