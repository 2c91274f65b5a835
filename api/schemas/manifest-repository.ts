import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { MANIFEST_STORE_TYPE } from '../../shared/c2pa/reader-open.js';
import { ISCC_IMAGE_SOFT_BINDING_ALG } from '../../shared/softbinding/iscc-image.js';
import { refuse } from '../validation.js';
import { errors, json, refusals } from './common.js';
import { formatsInWords, mediaBodies } from './media.js';
import { z } from './zod.js';

/** The C2PA Soft Binding Resolution API (1.1) for io.iscc.v0: its queries, results and manifest fetches. */

const MAX_RESULTS = 'must be a whole number from 1 to 100';
const MANIFEST_ID = /^[\x21-\x7e]{1,200}$/;

const maxResults = z.preprocess(
  (value) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value),
  z.number({ error: MAX_RESULTS }).int(MAX_RESULTS).min(1, MAX_RESULTS).max(100, MAX_RESULTS).default(10),
);

const ALG = ISCC_IMAGE_SOFT_BINDING_ALG;

/** The soft binding algorithm of a query: only io.iscc.v0 (400 unsupported_algorithm for any other). */
const algChecked = z.preprocess((value, ctx) => {
  if (value === undefined) {
    refuse(ctx, 'is required', 'invalid_parameter');
    return z.NEVER;
  }
  if (value === ALG) return value;
  refuse(ctx, `${JSON.stringify(value)} is not supported; this repository answers for ${ALG}`, 'unsupported_algorithm');
  return z.NEVER;
}, z.string().openapi({ example: ALG }));

const VALUE = 'is required: base64 of the ISCC Image-Code (or the ISCC string)';
const bindingValue = z.preprocess((value, ctx) => {
  if (typeof value === 'string' && value.length > 0 && value.length <= 200) return value;
  refuse(ctx, VALUE, 'invalid_parameter');
  return z.NEVER;
}, z.string().openapi({ minLength: 1, maxLength: 200 }));

// Keys in the order the checks report.
export const MatchesQuery = z.object({ maxResults });

export const ByBindingQuery = z.object({ maxResults, alg: algChecked, value: bindingValue });

export const ByContentQuery = z.object({ alg: algChecked.optional(), maxResults });

export const ByBindingInput = z.object({ alg: algChecked, value: bindingValue });

export const ManifestParams = z.object({
  manifestId: z
    .string()
    .regex(MANIFEST_ID, 'is not a manifest identifier')
    .openapi({ example: 'urn:c2pa:5bd2e1a8-9c3f-4b1e-8e0f-3c2d1b0a9f8e' }),
});

const ManifestQuery = z.object({
  returnActiveManifest: z
    .string()
    .optional()
    .openapi({ type: 'boolean', default: false, description: 'accepted; the store holds the active manifest (and, for a file that already had one, its parent)' }),
});

const SoftBindingQueryResult = z
  .object({
    matches: z.array(
      z.object({
        manifestId: z.string().openapi({ description: 'fetch it with GET /v1/manifests/{manifestId}' }),
        similarityScore: z.number().int().min(0).max(100).optional(),
      }),
    ),
  })
  .openapi('SoftBindingQueryResult');

const algorithmList = z.array(z.object({ alg: z.string() }));
const SupportedAlgorithms = z.object({ watermarks: algorithmList, fingerprints: algorithmList });

const tags = ['Manifest repository'];
const matches = json(SoftBindingQueryResult, 'The matches');

export const manifestRepositoryPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/v1/services/supportedAlgorithms',
    tags,
    summary: 'Soft binding algorithms this repository answers queries for (C2PA Soft Binding Resolution API)',
    responses: { 200: json(SupportedAlgorithms, 'The algorithms') },
  },
  {
    method: 'get',
    path: '/v1/matches/byBinding',
    tags,
    summary: 'Manifest ids whose soft binding matches a value (C2PA Soft Binding Resolution API queryByBinding)',
    description:
      "alg io.iscc.v0; value: base64 of the ISCC Image-Code's bytes (header and 64-bit body, as the c2pa.soft-binding assertion carries it) or the ISCC string (ISCC:EEA...). Fingerprints match within a Hamming distance of 12 of 64 bits, nearest first; similarityScore is 100 - distance * 100 / 64.",
    request: { query: ByBindingQuery },
    responses: { 200: matches, 400: errors.validation, 429: errors.rateLimited },
  },
  {
    method: 'post',
    path: '/v1/matches/byBinding',
    tags,
    summary: 'The same query with the binding in a JSON body (C2PA queryByLargeBinding)',
    request: { query: MatchesQuery, body: { required: true, content: { 'application/json': { schema: ByBindingInput } } } },
    responses: { 200: matches, 400: errors.validation, 429: errors.rateLimited },
  },
  {
    method: 'post',
    path: '/v1/matches/byContent',
    tags,
    summary: 'Manifest ids of signed images that look like the one sent (C2PA Soft Binding Resolution API byContent)',
    description: `The body is the image itself, in its own media type (${formatsInWords(['image'])}), or multipart/form-data with a part named file. Its ISCC Image-Code is computed (in the verification pool: 503 verification_busy when it is full) and matched as for byBinding. The image is not kept. An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large; one that cannot be decoded 400 corrupt_image. At most PUBLIC_CONCURRENCY_PER_ADDRESS requests at work per client, each counted until its pool work has ended (429 too_many_concurrent_requests); a client that hangs up has its work dropped or stopped.`,
    request: { query: ByContentQuery, body: mediaBodies.image },
    responses: {
      200: matches,
      ...refusals(400, 413, 415),
      422: errors.imageTooLarge,
      429: errors.rateLimited,
      503: errors.verificationBusy,
    },
  },
  {
    method: 'get',
    path: '/v1/manifests/{manifestId}',
    tags,
    summary: `A signed file's C2PA manifest store (${MANIFEST_STORE_TYPE}), or its JSON view with Accept: application/json`,
    description:
      "Public for discoverable files and for remote manifests (signed with manifest_placement \"remote\": the file names this URL, so it is served whatever the file's discoverability); any other id is 404. The JSON view shows what the manifest says (title, creator, actions, assertions), its signer (with signer.trust_source, judged under the same trust as the public verify) and the signer's revocation status, its signature (trusted, valid or invalid; the hard binding cannot be checked without the original file, so it is left out), c2pa-rs's status codes, the SHA-256 of the signed file and its on-chain anchor.",
    request: { params: ManifestParams, query: ManifestQuery },
    responses: {
      200: {
        description: 'The manifest store, or its JSON view',
        content: {
          [MANIFEST_STORE_TYPE]: { schema: z.string().openapi({ format: 'binary' }) },
          'application/json': { schema: z.object({}).passthrough() },
        },
      },
      ...refusals(400, 404, 429),
      503: errors.verificationBusy,
    },
  },
  {
    method: 'get',
    path: '/v1/manifests/{manifestId}/thumbnail',
    tags,
    summary: 'A small JPEG of the signed image the manifest belongs to (for side-by-side comparison)',
    request: { params: ManifestParams },
    responses: {
      200: {
        description: "JPEG, at most 320 px on its long side: of an image, drawn from the signed file; of a video, its manifest's claim thumbnail (404 for audio and for video signed without one)",
        content: { 'image/jpeg': { schema: z.string().openapi({ format: 'binary' }) } },
      },
      ...refusals(404, 429),
    },
  },
];
