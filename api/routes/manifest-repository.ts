import { Router, type Request } from 'express';
import { MANIFEST_STORE_TYPE } from '../../shared/c2pa/reader-open.js';
import { isccFromBindingValue } from '../../shared/softbinding/binding-value.js';
import { decodeImageCode } from '../../shared/softbinding/iscc-codec.js';
import { ISCC_IMAGE_SOFT_BINDING_ALG } from '../../shared/softbinding/iscc-image.js';
import { clientSignal } from '../client-signal.js';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import type { RateLimiters } from '../rate-limit.js';
import { describeManifest, servedManifest, findManifestMatches, findManifestMatchesByContent, manifestThumbnail } from '../services/manifest-repository.js';
import { ByBindingInput, ByBindingQuery, ByContentQuery, ManifestParams, MatchesQuery } from '../schemas/manifest-repository.js';
import { parseBody, parseParams } from '../validation.js';

const manifestIdOf = (req: Request) => parseParams(ManifestParams, req.params).manifestId;

/**
 * The manifest repository, as the C2PA Soft Binding Resolution API (1.1) defines it, for the fingerprint algorithm
 * io.iscc.v0 (ISCC Image-Code): query by binding value or by content, fetch a manifest store by its id. Public (no
 * credentials, rate limited) and limited to discoverable files and remote manifests (which their files name). Mount at /v1.
 */
export function manifestRepositoryRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

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
    return findManifestMatches(ctx, decodeImageCode(iscc), limit);
  };
  router.get('/matches/byBinding', limits.publicApi, async (req, res) => {
    const { value, maxResults } = parseParams(ByBindingQuery, req.query);
    res.json(await byBinding(value, maxResults));
  });
  router.post('/matches/byBinding', limits.publicApi, async (req, res) => {
    const { maxResults } = parseParams(MatchesQuery, req.query);
    res.json(await byBinding(parseBody(ByBindingInput, req.body).value, maxResults));
  });

  router.post(
    '/matches/byContent',
    limits.publicApi,
    limits.publicConcurrency(async (req, res) => {
      const signal = clientSignal(res);
      const { maxResults: limit } = parseParams(ByContentQuery, req.query);
      const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
      try {
        res.json(await findManifestMatchesByContent(ctx, staged, limit, signal));
      } finally {
        await ctx.staging.discard(staged);
      }
    }),
  );

  router.get('/manifests/:manifestId', limits.publicApi, async (req, res) => {
    const row = await servedManifest(ctx, manifestIdOf(req));
    res.setHeader('Vary', 'Accept');
    res.setHeader('Cache-Control', 'public, max-age=300');
    if (req.accepts([MANIFEST_STORE_TYPE, 'application/json']) === 'application/json') {
      res.json(await describeManifest(ctx, row));
      return;
    }
    res.setHeader('Content-Type', MANIFEST_STORE_TYPE);
    res.setHeader('Content-Disposition', `attachment; filename="manifest.c2pa"`);
    res.send(Buffer.from(row.store));
  });

  router.get('/manifests/:manifestId/thumbnail', limits.publicImages, async (req, res) => {
    const jpeg = await manifestThumbnail(ctx, manifestIdOf(req));
    res.setHeader('Content-Type', 'image/jpeg');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.send(jpeg);
  });

  return router;
}
