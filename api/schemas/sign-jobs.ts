import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { MANIFEST_PLACEMENTS } from '../../shared/domain/manifest-placement.js';
import { JOB_STATUSES } from '../../shared/job-status.js';
import { refuse } from '../validation.js';
import { Anchor } from './anchors.js';
import { c2paManifestLinkHeader, dateTime, errorResponse, errors, json, manifestPlacementChoice, nextCursor, orgChoice, pageFields, toPageRequest, uri, userOrApiKey, uuid, uuidField, refusals } from './common.js';
import { ManifestInput, manifestRequestField } from './manifest.js';
import { MediaType, signedFileContent } from './media.js';
import { CAWG_ROLES } from '../../shared/c2pa/cawg-identity.js';
import { z } from './zod.js';

/** Longest `?wait=` a client may ask for (issue: N <= 30 seconds). */
const MAX_WAIT_SECONDS = 30;

/** A person signing by name, with CAWG roles (CAWG identity 1.1 §5.1.2); others are refused. */
export const IdentityRequest = z
  .object({
    roles: z
      .array(z.enum(CAWG_ROLES, { error: `must be one of ${CAWG_ROLES.join(', ')}` }))
      .max(CAWG_ROLES.length)
      .refine((roles) => new Set(roles).size === roles.length, 'must not repeat a role')
      .openapi({ example: ['cawg.creator'] }),
  })
  .strict()
  .openapi('IdentityRequest');

// Keys in the order the checks report: the choices, the upload, the manifest, the template.
export const SignInput = z
  .object({
    discoverable: orgChoice(
      'whether the signed file (over the template choice) is discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id})',
    ),
    soft_binding: orgChoice(
      'whether an image is signed with a soft binding (over the template choice): its ISCC fingerprint as a c2pa.soft-binding assertion and in the index that finds copies by content; false skips the fingerprint. Video, audio and documents are signed without one whatever this says (the job answers soft_binding: false)',
    ),
    manifest_placement: manifestPlacementChoice(
      "where the signed file's manifest store goes (over the template choice): \"embedded\" in the file, or \"remote\": kept only in the public manifest repository, whose URL (GET /v1/manifests/{id}, on BASE_URL, served whatever the file's discoverability) the file carries as its XMP dcterms:provenance reference, and which its download names in a Link: <...>; rel=\"c2pa-manifest\" header. Remote works for the formats c2pa-wasm signs itself (images, AVI, PDF); 422 remote_manifest_unsupported for video and audio signed streamed (MP4, M4V, MOV, M4A, WAV, MP3, FLAC, fragmented MP4 renditions) and ZIP containers (EPUB, Office, OpenDocument)",
      "the template's choice, else embedded",
    ),
    upload_id: z.preprocess((value, ctx) => {
      if (value === undefined || typeof value === 'string') return value;
      refuse(ctx, 'must be a string');
      return z.NEVER;
    }, z.string().openapi({ format: 'uuid', description: 'an upload of the organisation (POST /v1/media/upload)' })),
    manifest: manifestRequestField,
    template_id: uuidField
      .nullable()
      .optional()
      .transform((id) => id ?? null)
      .openapi({ description: "one of the organisation's manifest templates: its defaults apply under the manifest's fields" }),
    identity: IdentityRequest.nullable()
      .optional()
      .transform((v) => v ?? null)
      .openapi({
        description:
          "sign as the person too: a CAWG identity assertion (cawg.x509.cose) naming the signed-in user (or the user the API key is bound to), with these roles, signed with their identity certificate's key beside the organisation's claim signature. Without it, the template's identity setting applies (null or absent: the organisation alone). 422 no_identity for an API key bound to no user; 409 identity_certificate_missing without a valid identity certificate (POST /auth/me/identity-certificate, or one from the organisation's external CA: /auth/me/identity-certificate/requests); 422 identity_not_supported for video and audio signed streamed (MP4, M4V, MOV, M4A, WAV, MP3, FLAC). Validators that do not hold the service's identity CA as a CAWG trust anchor read the identity, and so the file, as not trusted.",
      }),
  })
  .openapi('SignInput');

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

/** The sign request's header, parsed as { 'Idempotency-Key': req.get('idempotency-key') }. */
export const SignHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .regex(IDEMPOTENCY_KEY, 'must be 1-200 visible ASCII characters')
    .optional()
    .openapi({ maxLength: 200, description: 'repeating a request with the same key (and the same body) returns the same job' }),
});

export const JobsQuery = z
  .object({
    ...pageFields,
    status: z.enum(JOB_STATUSES, { error: `must be one of ${JOB_STATUSES.join(', ')}` }).optional(),
  })
  .transform(({ status, ...page }) => ({ status, page: toPageRequest(page) }));

export const JobParams = z.object({ job_id: uuidField });

const WAIT = `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`;
export const JobQuery = z.object({
  wait: z.preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z.number({ error: WAIT }).int(WAIT).min(0, WAIT).max(MAX_WAIT_SECONDS, WAIT).default(0),
  ),
});

export const FileParams = z.object({ file_id: uuidField });

const Job = z
  .object({
    job_id: uuid,
    status: z.enum(JOB_STATUSES).openapi({
      description: 'queued -> processing -> signed (file ready) -> anchoring (batch sealed, transaction sent) -> anchored (confirmed); or failed',
    }),
    upload_id: uuid,
    manifest: ManifestInput.openapi({
      description: "the manifest the job applies: with a template, its defaults merged under the request's fields (kept as signed: later template edits do not change it)",
    }),
    template: z
      .object({ id: uuid, version: z.number().int() })
      .nullable()
      .openapi({ description: 'the manifest template and version the job used (GET /v1/manifest-templates/{id}/versions/{version}); null without one' }),
    soft_binding: z
      .boolean()
      .nullable()
      .openapi({
        description:
          "whether the file is signed with a soft binding (its ISCC fingerprint as a c2pa.soft-binding assertion and in the index that finds copies by content): the request's or the template's choice, null following the organisation's setting (GET /org: soft_binding). Always false (none) for video, audio and documents (PDF, EPUB, Office, OpenDocument): ISCC image codes are of images, and a request or template asking for one there is ignored",
      }),
    manifest_placement: z.enum(MANIFEST_PLACEMENTS).openapi({
      description: 'where the signed file keeps its manifest store: embedded in the file, or remote (in the public manifest repository, named by the file and by its download\'s Link header)',
    }),
    attempts: z.number().int(),
    created_at: dateTime,
    updated_at: dateTime,
    status_url: uri,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    signed_file: z
      .object({
        file_id: uuid,
        sha256: z.string(),
        size: z.number().int(),
        mime_type: MediaType,
        certificate_serial: z.string().openapi({ description: 'serial (hex) of the signing certificate' }),
        certificate_subject: z
          .string()
          .nullable()
          .openapi({ description: "subject of the signing certificate: the organisation's name (null for files signed before per-organisation certificates)" }),
        download_url: uri,
        rendition: z
          .object({ fragments: z.number().int(), playlists: z.number().int() })
          .nullable()
          .openapi({ description: 'a signed fragmented MP4 rendition, downloaded as a zip of its parts (its sha256 and anchor are its signed init segment\'s, its size that of all its parts); null for a single file' }),
      })
      .nullable(),
    anchor: Anchor.nullable().openapi({ description: "the signed file's on-chain anchor (null before the file exists)" }),
  })
  .openapi('Job');

const tags = ['Media'];

export const signJobsPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/v1/media/sign',
    tags,
    summary: 'Queue an upload for C2PA signing; answers 202 at once with the job',
    description:
      "The organisation signs with its own certificate and vault key. Repeating a request with the same Idempotency-Key (same upload_id, template_id and manifest) returns the same job. With template_id, the organisation's manifest template gives the defaults and the request's manifest fields replace the template's (title is always required; creator only when the template gives none); the job records the template version and the merged manifest it applies.",
    security: userOrApiKey,
    request: { headers: SignHeaders, body: { required: true, content: { 'application/json': { schema: SignInput } } } },
    responses: {
      202: json(Job, 'Queued (or the existing job for this Idempotency-Key)'),
      ...refusals(400, 401, 403, 404, 409),
      503: errorResponse(
        'Nothing was recorded: no_signing_certificate (no valid signing certificate; an operator must issue one) or queue_unavailable (retry later); both with Retry-After',
      ),
    },
  },
  {
    method: 'get',
    path: '/v1/media/jobs',
    tags,
    summary: "The organisation's sign jobs, newest first",
    security: userOrApiKey,
    request: { query: JobsQuery },
    responses: {
      200: json(z.object({ jobs: z.array(Job), next_cursor: nextCursor }), 'A page of jobs'),
      ...refusals(400, 401),
    },
  },
  {
    method: 'get',
    path: '/v1/media/jobs/{job_id}',
    tags,
    summary: "A sign job's status; with ?wait=N holds the request until the job leaves queued/processing or N seconds pass",
    description:
      '?wait= returns once the file is signed; it does not wait for anchoring (status signed -> anchoring -> anchored), which follows within about ANCHOR_BATCH_MAX_AGE_MS plus the confirmations. The anchor object carries the proof once anchored.',
    security: userOrApiKey,
    request: { params: JobParams, query: JobQuery },
    responses: {
      200: json(Job, 'The job'),
      ...refusals(400, 401, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/media/files/{file_id}',
    tags,
    summary: 'Download a signed file',
    security: userOrApiKey,
    request: { params: FileParams },
    responses: {
      200: {
        description:
          'The signed file, in its own media type (Content-Type as stored). A signed fragmented MP4 rendition is an application/zip (streamed, its parts stored uncompressed, ZIP64 past 4 GiB) of its parts under their original names: the signed init segment (its manifest carries c2pa.hash.bmff.v3 with the Merkle tree), every signed segment (each with its merkle box) and the playlists unchanged',
        content: { ...signedFileContent, 'application/zip': { schema: z.string().openapi({ format: 'binary' }) } },
        headers: { Link: c2paManifestLinkHeader },
      },
      ...refusals(400, 401, 404),
    },
  },
];
