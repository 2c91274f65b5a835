import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errorResponse, errors, json, nameField, userOnly, userOrApiKey, uuid, refusals } from './common.js';
import { z } from './zod.js';

export const OrganisationSettings = z
  .object({ name: nameField(200).optional(), discoverable: z.boolean().optional(), soft_binding: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.discoverable !== undefined || b.soft_binding !== undefined, { message: 'give name, discoverable or soft_binding' });

const Organisation = z
  .object({
    org_id: uuid,
    name: z.string(),
    discoverable: z.boolean().openapi({ description: 'whether its signed files are discoverable in the public manifest repository (unless a request or template chose otherwise)' }),
    soft_binding: z.boolean().openapi({ description: 'whether its images are signed with a soft binding: an ISCC fingerprint in the manifest (c2pa.soft-binding) and in the index that finds copies by content (unless a request or template chose otherwise)' }),
    created_at: dateTime,
  })
  .openapi('Organisation');

const tags = ['Organisation'];

export const organisationPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/org',
    tags,
    summary: "The caller's organisation",
    security: userOrApiKey,
    responses: { 200: json(Organisation, 'The organisation'), 401: errors.unauthenticated },
  },
  {
    method: 'patch',
    path: '/org',
    tags,
    summary: "Change the organisation's settings: its name (the signing certificate is reissued with it), whether its signed files are discoverable and whether its images get a soft binding",
    description:
      "name: signatures name the organisation, so a rename issues a new signing certificate (and key) at once with the new name in its subject; files signed before keep the old name, which was right when they were signed (the old certificate is not revoked). If the new certificate cannot be issued (vault or CA unavailable), nothing changes and the answer is 503. discoverable (default true): whether the organisation's signed files can be found in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); files whose sign request or template chose for themselves keep that choice, all others follow the setting at once. soft_binding (default true): whether images signed from now on get an ISCC fingerprint, as a c2pa.soft-binding assertion in their manifest and a row in the soft-binding index (so a copy stripped of its manifest can be matched back by content); off, signing skips the fingerprint (cheaper, see the README) and such files can only be found by their embedded manifest. Sign requests and templates may choose for themselves. Files signed before keep what they were signed with.",
    security: userOnly,
    request: { body: { required: true, content: { 'application/json': { schema: OrganisationSettings } } } },
    responses: {
      200: json(Organisation, 'The organisation, changed'),
      ...refusals(400, 401, 403),
      503: errorResponse('The new signing certificate could not be issued; the name is unchanged'),
    },
  },
];
