import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { TEMPLATE_FIELDS } from '../../shared/c2pa/parse-manifest.js';
import { MANIFEST_PLACEMENTS } from '../../shared/domain/manifest-placement.js';
import { refuse } from '../validation.js';
import { dateTime, errors, json, manifestPlacementChoice, nameField, nextCursor, noContent, orgChoice, pageQuery, userOnly, userOrApiKey, uuid, uuidField, refusals } from './common.js';
import { ManifestDefaults, manifestDefaultsField } from './manifest.js';
import { IdentityRequest } from './sign-jobs.js';
import { z } from './zod.js';

const TEMPLATE_NAME_MAX = 100;

const BODY_FIELDS = ['name', 'manifest', 'discoverable', 'soft_binding', 'manifest_placement', 'identity'];

/** A create or update body: `{ name, manifest }`, the manifest checked by the sign request's own field rules. */
export const ManifestTemplateInput = z.preprocess(
  (body, ctx) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      refuse(ctx, 'the body must be a JSON object with name and manifest');
      return z.NEVER;
    }
    const stray = Object.keys(body).find((key) => !BODY_FIELDS.includes(key));
    if (stray === undefined) return body;
    const hint = (TEMPLATE_FIELDS as readonly string[]).includes(stray) ? `; manifest defaults go inside manifest (manifest.${stray})` : '';
    refuse(ctx, `is not a template field${hint}`, 'validation_error', [stray]);
    return z.NEVER;
  },
  z
    .object({
      name: nameField(TEMPLATE_NAME_MAX).openapi({ description: "unique among the organisation's templates" }),
      manifest: manifestDefaultsField,
      discoverable: orgChoice('whether files signed with it are discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id})'),
      soft_binding: orgChoice('whether images signed with it get a soft binding (ISCC fingerprint assertion and index row)'),
      manifest_placement: manifestPlacementChoice(
        'where files signed with it keep their manifest store: "embedded" in the file, or "remote": kept in the public manifest repository (GET /v1/manifests/{id}) and named by the file (XMP dcterms:provenance) and by its download\'s Link header (a sign request may choose otherwise)',
        'embedded',
      ),
      identity: IdentityRequest.nullable()
        .optional()
        .transform((v) => v ?? null)
        .openapi({
          description:
            "sign as the person too, with these CAWG roles, when a sign request with this template gives no identity of its own (the request's replaces it): the same rules as the sign request's identity (400 for a role outside the CAWG vocabulary; at signing, 422 no_identity for an API key bound to no user, 409 identity_certificate_missing, 422 identity_not_supported for video and audio signed streamed). null or absent: the organisation alone",
        }),
    })
    .strict()
    .openapi('ManifestTemplateInput'),
);

const ManifestTemplate = z
  .object({
    template_id: uuid,
    name: z.string(),
    version: z.number().int().min(1).openapi({ description: 'starts at 1; every update adds one' }),
    manifest: ManifestDefaults,
    discoverable: z.boolean().nullable(),
    soft_binding: z.boolean().nullable(),
    manifest_placement: z.enum(MANIFEST_PLACEMENTS).nullable().openapi({ description: 'where files signed with it keep their manifest store; null: embedded' }),
    identity: IdentityRequest.nullable().openapi({ description: "the CAWG identity a sign request with this template signs with when it gives none; null: the organisation alone" }),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .openapi('ManifestTemplate');

const ManifestTemplateVersion = z
  .object({
    template_id: uuid,
    version: z.number().int().min(1),
    name: z.string().openapi({ description: 'the name the template had at this version' }),
    manifest: ManifestDefaults,
    created_at: dateTime.openapi({ description: 'when this version was saved' }),
    current_version: z.number().int(),
    deleted: z.boolean(),
  })
  .openapi('ManifestTemplateVersion');

export const TemplateParams = z.object({ template_id: uuidField });

export const TemplateVersionParams = z.object({
  template_id: uuidField,
  version: z.preprocess(
    (value) => (typeof value === 'string' && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : value),
    z.number({ error: 'must be a whole number from 1' }).int().min(1),
  ),
});

const tags = ['Manifest templates'];
const body = { required: true, content: { 'application/json': { schema: ManifestTemplateInput } } };

export const manifestTemplatesPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/v1/manifest-templates',
    tags,
    summary: 'Create a manifest template (admin); it starts at version 1',
    description:
      "The defaults use the sign request's manifest fields and rules, without title and dateCreated (given per request). Names are unique among the organisation's templates (409 template_name_taken).",
    security: userOnly,
    request: { body },
    responses: {
      201: json(ManifestTemplate, 'The template'),
      ...refusals(400, 401, 403, 409),
    },
  },
  {
    method: 'get',
    path: '/v1/manifest-templates',
    tags,
    summary: "The organisation's manifest templates (current versions), newest first",
    description: 'Deleted templates are not listed. Admins, signers, viewers and API keys may read templates.',
    security: userOrApiKey,
    request: { query: pageQuery },
    responses: {
      200: json(z.object({ templates: z.array(ManifestTemplate), next_cursor: nextCursor }), 'A page of templates'),
      ...refusals(400, 401, 403),
    },
  },
  {
    method: 'get',
    path: '/v1/manifest-templates/{template_id}',
    tags,
    summary: "A manifest template's current version",
    security: userOrApiKey,
    request: { params: TemplateParams },
    responses: {
      200: json(ManifestTemplate, 'The template'),
      ...refusals(400, 401, 403, 404),
    },
  },
  {
    method: 'put',
    path: '/v1/manifest-templates/{template_id}',
    tags,
    summary: "Replace a manifest template's name and defaults (admin); its version goes up by one",
    description:
      'A full replacement, with the same body as create (defaults left out are removed). Every update makes a new version, kept for good; jobs signed with an earlier version keep it, and the manifest they applied, unchanged.',
    security: userOnly,
    request: { params: TemplateParams, body },
    responses: {
      200: json(ManifestTemplate, 'The template at its new version'),
      ...refusals(400, 401, 403, 404, 409),
    },
  },
  {
    method: 'delete',
    path: '/v1/manifest-templates/{template_id}',
    tags,
    summary: 'Delete a manifest template (admin)',
    description:
      'It can no longer be read, listed or signed with, and its name is free again. Its versions are kept, so jobs that used it still name it and GET /v1/manifest-templates/{template_id}/versions/{version} still answers.',
    security: userOnly,
    request: { params: TemplateParams },
    responses: {
      204: noContent('Deleted'),
      ...refusals(400, 401, 403, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/manifest-templates/{template_id}/versions/{version}',
    tags,
    summary: 'One saved version of a manifest template, as jobs that used it were given it',
    description: 'Answers for deleted templates too (deleted is then true), so a job\'s template reference always resolves.',
    security: userOrApiKey,
    request: { params: TemplateVersionParams },
    responses: {
      200: json(ManifestTemplateVersion, 'The version'),
      ...refusals(400, 401, 403, 404),
    },
  },
];
