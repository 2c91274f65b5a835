import { Router, type Request } from 'express';
import sharp from 'sharp';
import { anchorViewForHash } from '../../shared/anchoring/views.js';
import { claimThumbnailOfStore, MANIFEST_STORE_TYPE } from '../../shared/c2pa/read-asset.js';
import { identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import { isccFromBindingValue } from '../../shared/softbinding/binding-value.js';
import { decodeImageCode, ISCC_IMAGE_SOFT_BINDING_ALG, type ImageCode } from '../../shared/softbinding/iscc-image.js';
import { formatFor } from '../../shared/media/formats.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import { describeStoredManifests, findByFingerprint, signatureOf, similarityScore, type FingerprintMatch } from '../media/recovery.js';
import type { RateLimiters } from '../rate-limit.js';
import { ByBindingInput, ByBindingQuery, ByContentQuery, ManifestParams, MatchesQuery } from '../schemas/manifest-repository.js';
import { parseBody, parseParams } from '../validation.js';
import { mediaRejection } from './uploads.js';

const THUMBNAIL_EDGE = 320;

/** The C2PA query result: manifest ids, nearest first, with a 0-100 similarity score. */
function matchesOf(found: FingerprintMatch[]) {
  return { matches: found.map(({ match, stored }) => ({ manifestId: stored.manifest_id, similarityScore: similarityScore(match.distance) })) };
}

/** A discoverable manifest store and its signed file, or 404 (also for a non-discoverable one: it does not exist publicly). */
async function discoverableManifest(ctx: AppContext, req: Request) {
  const { manifestId: id } = parseParams(ManifestParams, req.params);
  const row = (await ctx.knex('manifest_stores as m')
    .join('signed_files as f', 'f.id', 'm.signed_file_id')
    .where({ 'm.manifest_id': id, 'm.discoverable': true })
    .first('m.manifest_id', 'm.store', 'm.signed_file_id', 'f.sha256', 'f.storage_key', 'f.mime_type')) as
    | { manifest_id: string; store: Uint8Array; signed_file_id: string; sha256: string; storage_key: string; mime_type: string }
    | undefined;
  if (!row) throw notFound('manifest');
  return row;
}

/**
 * The manifest repository, as the C2PA Soft Binding Resolution API (1.1) defines it, for the fingerprint algorithm
 * io.iscc.v0 (ISCC Image-Code): query by binding value or by content, fetch a manifest store by its id. Public (no
 * credentials, rate limited) and limited to discoverable files. Mount at /v1.
 */
export function manifestRepositoryRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();
  const lookup = (code: ImageCode, limit: number) => findByFingerprint(ctx.knex, code, { limit });

  router.get('/services/supportedAlgorithms', (_req, res) => {
    res.json({ watermarks: [], fingerprints: [{ alg: ISCC_IMAGE_SOFT_BINDING_ALG }] });
  });

  const byBinding = async (value: string, limit: number) => {
    let iscc: string;
    try {
      iscc = isccFromBindingValue(value);
    } catch (err) {
      throw badRequest(`value is not an ISCC Image-Code: ${(err as Error).message}`, 'invalid_parameter');
    }
    return matchesOf(await lookup(decodeImageCode(iscc), limit));
  };
  router.get('/matches/byBinding', limits.publicApi, async (req, res) => {
    const { value, maxResults } = parseParams(ByBindingQuery, req.query);
    res.json(await byBinding(value, maxResults));
  });
  router.post('/matches/byBinding', limits.publicApi, async (req, res) => {
    const { maxResults } = parseParams(MatchesQuery, req.query);
    res.json(await byBinding(parseBody(ByBindingInput, req.body).value, maxResults));
  });

  router.post('/matches/byContent', limits.publicApi, limits.publicConcurrency, async (req, res) => {
    const { maxResults: limit } = parseParams(ByContentQuery, req.query);
    const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      const format = await identifyMedia(staged.tempPath, { checkStructure: false });
      if (format.kind !== 'image') throw new MediaRejectedError('unsupported', `fingerprint queries take images; this is ${format.label}`);
      // Decoded in the verification pool: 422 image_too_large over MAX_IMAGE_PIXELS, 400 corrupt_image when it cannot be.
      const { iscc } = await ctx.verifyPool.run('fingerprint', { filePath: staged.tempPath, mimeType: format.mimeType, maxPixels: ctx.config.maxImagePixels, fingerprintMode: ctx.config.fingerprintMode });
      res.json(matchesOf(await lookup(decodeImageCode(iscc), limit)));
    } catch (err) {
      throw err instanceof MediaRejectedError ? mediaRejection(err) : err;
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  router.get('/manifests/:manifestId', limits.publicApi, async (req, res) => {
    const row = await discoverableManifest(ctx, req);
    res.setHeader('Vary', 'Accept');
    res.setHeader('Cache-Control', 'public, max-age=300');
    if (req.accepts([MANIFEST_STORE_TYPE, 'application/json']) === 'application/json') {
      const [described] = await describeStoredManifests(ctx.knex, ctx.verifyPool, [new Uint8Array(row.store)]);
      const { report, revocation } = described!;
      const kind = formatFor(row.mime_type)?.kind;
      res.json({
        manifest_id: row.manifest_id,
        manifest: report.manifest,
        signer: report.signer,
        signature: signatureOf(report),
        status: report.status,
        timestamp: report.timestamp,
        revocation,
        signed_sha256: row.sha256,
        anchor: (await anchorViewForHash(ctx.knex, ctx.config.baseUrl, row.sha256)) ?? null,
        // Images are drawn from the signed file; video from the manifest's claim thumbnail, when it has one.
        thumbnail_url: kind === 'image' || (kind === 'video' && report.manifest?.thumbnail)
          ? `${ctx.config.baseUrl}/v1/manifests/${encodeURIComponent(row.manifest_id)}/thumbnail`
          : null,
      });
      return;
    }
    res.setHeader('Content-Type', MANIFEST_STORE_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="manifest.c2pa"`);
    res.send(Buffer.from(row.store));
  });

  router.get('/manifests/:manifestId/thumbnail', limits.publicImages, async (req, res) => {
    const row = await discoverableManifest(ctx, req);
    // A video file is never read (hundreds of MiB sharp cannot draw): its manifest's claim thumbnail is the picture.
    const kind = formatFor(row.mime_type)?.kind;
    let picture: Uint8Array;
    if (kind === 'image') picture = await ctx.files.read(row.storage_key);
    else if (kind === 'video') {
      const claim = await claimThumbnailOfStore(row.store);
      if (!claim) throw new ApiError(404, 'not_found', 'this video was signed without a claim thumbnail');
      picture = claim.bytes;
    } else throw new ApiError(404, 'not_found', 'this manifest belongs to an audio file: there is no thumbnail');
    const jpeg = await sharp(picture, { limitInputPixels: 100_000_000 })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 75 })
      .toBuffer()
      .catch(() => {
        // An image format libvips cannot decode here (JPEG XL in sharp's prebuilt build): there is no thumbnail.
        throw new ApiError(404, 'not_found', 'no thumbnail can be drawn of this image format');
      });
    res.setHeader('Content-Type', 'image/jpeg');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.send(jpeg);
  });

  return router;
}
