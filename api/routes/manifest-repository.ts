import { Router, type Request } from 'express';
import { MANIFEST_STORE_TYPE } from '../../shared/c2pa/read-asset.js';
import { isccFromBindingValue } from '../../shared/softbinding/binding-value.js';
import { decodeImageCode, ISCC_IMAGE_SOFT_BINDING_ALG } from '../../shared/softbinding/iscc-image.js';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { receiveAnyFile } from '../media/incoming-file.js';
import type { RateLimiters } from '../rate-limit.js';
import { describeManifest, discoverableManifest, findManifestMatches, findManifestMatchesByContent, manifestThumbnail } from '../services/manifest-repository.js';

const MANIFEST_ID = /^[\x21-\x7e]{1,200}$/;

function maxResults(raw: unknown): number {
  if (raw === undefined) return 10;
  if (typeof raw !== 'string' || !/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) throw badRequest('maxResults must be a whole number from 1 to 100', 'invalid_parameter');
  return Number(raw);
}

function checkAlg(alg: unknown, required: boolean): void {
  if (alg === undefined && !required) return;
  if (alg === undefined) throw badRequest('alg is required', 'invalid_parameter');
  if (alg !== ISCC_IMAGE_SOFT_BINDING_ALG) throw badRequest(`alg ${JSON.stringify(alg)} is not supported; this repository answers for ${ISCC_IMAGE_SOFT_BINDING_ALG}`, 'unsupported_algorithm');
}

function manifestIdOf(req: Request): string {
  const id = String(req.params.manifestId);
  if (!MANIFEST_ID.test(id)) throw badRequest('manifestId is not a manifest identifier', 'invalid_parameter');
  return id;
}

/**
 * The manifest repository, as the C2PA Soft Binding Resolution API (1.1) defines it, for the fingerprint algorithm
 * io.iscc.v0 (ISCC Image-Code): query by binding value or by content, fetch a manifest store by its id. Public (no
 * credentials, rate limited) and limited to discoverable files. Mount at /v1.
 */
export function manifestRepositoryRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();

  /**
   * @openapi
   * /v1/services/supportedAlgorithms:
   *   get:
   *     tags: [Manifest repository]
   *     summary: "Soft binding algorithms this repository answers queries for (C2PA Soft Binding Resolution API)"
   *     responses:
   *       200: { description: The algorithms, content: { application/json: { schema: { type: object, properties: { watermarks: { type: array, items: { type: object, properties: { alg: { type: string } } } }, fingerprints: { type: array, items: { type: object, properties: { alg: { type: string } } } } } } } } }
   */
  router.get('/services/supportedAlgorithms', (_req, res) => {
    res.json({ watermarks: [], fingerprints: [{ alg: ISCC_IMAGE_SOFT_BINDING_ALG }] });
  });

  /**
   * @openapi
   * /v1/matches/byBinding:
   *   get:
   *     tags: [Manifest repository]
   *     summary: "Manifest ids whose soft binding matches a value (C2PA Soft Binding Resolution API queryByBinding)"
   *     description: "alg io.iscc.v0; value: base64 of the ISCC Image-Code's bytes (header and 64-bit body, as the c2pa.soft-binding assertion carries it) or the ISCC string (ISCC:EEA...). Fingerprints match within a Hamming distance of 12 of 64 bits, nearest first; similarityScore is 100 - distance * 100 / 64."
   *     parameters:
   *       - { name: alg, in: query, required: true, schema: { type: string, example: io.iscc.v0 } }
   *       - { name: value, in: query, required: true, schema: { type: string } }
   *       - { name: maxResults, in: query, required: false, schema: { type: integer, minimum: 1, maximum: 100, default: 10 } }
   *     responses:
   *       200: { description: The matches, content: { application/json: { schema: { $ref: '#/components/schemas/SoftBindingQueryResult' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   *   post:
   *     tags: [Manifest repository]
   *     summary: "The same query with the binding in a JSON body (C2PA queryByLargeBinding)"
   *     parameters:
   *       - { name: maxResults, in: query, required: false, schema: { type: integer, minimum: 1, maximum: 100, default: 10 } }
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { type: object, required: [alg, value], properties: { alg: { type: string }, value: { type: string } } } } }
   *     responses:
   *       200: { description: The matches, content: { application/json: { schema: { $ref: '#/components/schemas/SoftBindingQueryResult' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   * components:
   *   schemas:
   *     SoftBindingQueryResult:
   *       type: object
   *       properties:
   *         matches:
   *           type: array
   *           items:
   *             type: object
   *             required: [manifestId]
   *             properties:
   *               manifestId: { type: string, description: 'fetch it with GET /v1/manifests/{manifestId}' }
   *               similarityScore: { type: integer, minimum: 0, maximum: 100 }
   */
  const byBinding = async (alg: unknown, value: unknown, limit: number) => {
    checkAlg(alg, true);
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) throw badRequest('value is required: base64 of the ISCC Image-Code (or the ISCC string)', 'invalid_parameter');
    let iscc: string;
    try {
      iscc = isccFromBindingValue(value);
    } catch (err) {
      throw badRequest(`value is not an ISCC Image-Code: ${(err as Error).message}`, 'invalid_parameter');
    }
    return findManifestMatches(ctx, decodeImageCode(iscc), limit);
  };
  router.get('/matches/byBinding', limits.publicApi, async (req, res) => {
    res.json(await byBinding(req.query.alg, req.query.value, maxResults(req.query.maxResults)));
  });
  router.post('/matches/byBinding', limits.publicApi, async (req, res) => {
    const body = (req.body ?? {}) as { alg?: unknown; value?: unknown };
    res.json(await byBinding(body.alg, body.value, maxResults(req.query.maxResults)));
  });

  /**
   * @openapi
   * /v1/matches/byContent:
   *   post:
   *     tags: [Manifest repository]
   *     summary: "Manifest ids of signed images that look like the one sent (C2PA Soft Binding Resolution API byContent)"
   *     description: "The body is the image itself (Content-Type image/jpeg or image/png), or multipart/form-data with a part named file. Its ISCC Image-Code is computed (in the verification pool: 503 verification_busy when it is full) and matched as for byBinding. The image is not kept. An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large; one that cannot be decoded 400 corrupt_image. At most PUBLIC_CONCURRENCY_PER_ADDRESS requests in flight per client (429 too_many_concurrent_requests)."
   *     parameters:
   *       - { name: alg, in: query, required: false, schema: { type: string, example: io.iscc.v0 } }
   *       - { name: maxResults, in: query, required: false, schema: { type: integer, minimum: 1, maximum: 100, default: 10 } }
   *     requestBody:
   *       required: true
   *       content:
   *         image/*: { schema: { type: string, format: binary } }
   *         multipart/form-data: { schema: { type: object, properties: { file: { type: string, format: binary } } } }
   *     responses:
   *       200: { description: The matches, content: { application/json: { schema: { $ref: '#/components/schemas/SoftBindingQueryResult' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       413: { $ref: '#/components/responses/TooLarge' }
   *       415: { $ref: '#/components/responses/UnsupportedType' }
   *       422: { $ref: '#/components/responses/ImageTooLarge' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   *       503: { $ref: '#/components/responses/VerificationBusy' }
   */
  router.post('/matches/byContent', limits.publicApi, limits.publicConcurrency, async (req, res) => {
    checkAlg(req.query.alg, false);
    const limit = maxResults(req.query.maxResults);
    const staged = await receiveAnyFile(req, ctx.staging, ctx.config.maxUploadBytes);
    try {
      res.json(await findManifestMatchesByContent(ctx, staged, limit));
    } finally {
      await ctx.staging.discard(staged);
    }
  });

  /**
   * @openapi
   * /v1/manifests/{manifestId}:
   *   get:
   *     tags: [Manifest repository]
   *     summary: "A signed file's C2PA manifest store (application/c2pa), or its JSON view with Accept: application/json"
   *     description: "Public for discoverable files; any other id is 404. The JSON view shows what the manifest says (title, creator, actions, assertions), its signer and the signer's revocation status, its signature (trusted, valid or invalid; the hard binding cannot be checked without the original file, so it is left out), c2pa-rs's status codes, the SHA-256 of the signed file and its on-chain anchor."
   *     parameters:
   *       - { name: manifestId, in: path, required: true, schema: { type: string, example: 'urn:c2pa:5bd2e1a8-9c3f-4b1e-8e0f-3c2d1b0a9f8e' } }
   *       - { name: returnActiveManifest, in: query, required: false, schema: { type: boolean, default: false }, description: 'accepted; the store holds the active manifest (and, for a file that already had one, its parent)' }
   *     responses:
   *       200:
   *         description: The manifest store, or its JSON view
   *         content:
   *           application/c2pa: { schema: { type: string, format: binary } }
   *           application/json: { schema: { type: object } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.get('/manifests/:manifestId', limits.publicApi, async (req, res) => {
    const row = await discoverableManifest(ctx, manifestIdOf(req));
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

  /**
   * @openapi
   * /v1/manifests/{manifestId}/thumbnail:
   *   get:
   *     tags: [Manifest repository]
   *     summary: "A small JPEG of the signed image the manifest belongs to (for side-by-side comparison)"
   *     parameters:
   *       - { name: manifestId, in: path, required: true, schema: { type: string } }
   *     responses:
   *       200: { description: 'JPEG, at most 320 px on its long side: of an image, drawn from the signed file; of a video, its manifest''s claim thumbnail (404 for audio and for video signed without one)', content: { image/jpeg: { schema: { type: string, format: binary } } } }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.get('/manifests/:manifestId/thumbnail', limits.publicImages, async (req, res) => {
    const jpeg = await manifestThumbnail(ctx, manifestIdOf(req));
    res.setHeader('Content-Type', 'image/jpeg');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.send(jpeg);
  });

  return router;
}
