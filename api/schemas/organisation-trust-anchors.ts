import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errorResponse, json, nameField, noContent, refusals, userOnly, uuid, uuidField } from './common.js';
import { z } from './zod.js';

export const NewTrustAnchorInput = z.object({
  pem: z.string().max(20_000, 'must be at most 20000 characters').openapi({ description: 'one CA certificate, PEM (-----BEGIN CERTIFICATE-----)' }),
  label: nameField(100).optional().openapi({ description: "a name for it, e.g. the partner's", example: 'Partner Agency CA' }),
});
export const TrustAnchorParams = z.object({ anchor_id: uuidField });

const TrustAnchor = z
  .object({
    anchor_id: uuid,
    label: z.string().nullable(),
    subject: z.string().openapi({ example: 'CN=Partner Agency Root, O=Partner Agency' }),
    fingerprint_sha256: z.string().openapi({ description: "SHA-256 of the certificate's DER, lowercase hex" }),
    not_after: dateTime.openapi({ description: 'when the certificate expires' }),
    added_by: uuid.nullable().openapi({ description: 'the admin who added it (null once that user is deleted)' }),
    added_at: dateTime,
    pem: z.string(),
  })
  .openapi('OrganisationTrustAnchor');

const tags = ['Organisation'];
const security = userOnly;

export const organisationTrustAnchorsPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/org/trust-anchors',
    tags,
    summary:
      "Trust a CA for the organisation's own verifications (admin): a signer chaining to it reads Trusted, with trust_source organisation_anchor, in POST /v1/media/verify by the organisation's members only (never in the public verify, never for other organisations)",
    security,
    request: { body: { required: true, content: { 'application/json': { schema: NewTrustAnchorInput } } } },
    responses: {
      201: json(TrustAnchor, 'The anchor, trusted from now on'),
      ...refusals(400, 401, 403),
      409: errorResponse('The organisation already trusts this certificate (trust_anchor_exists), or has the most anchors it may have, 50 (too_many_trust_anchors)'),
      422: errorResponse(
        'Not a CA certificate the service can trust: certificate_unreadable (no PEM certificate, or it does not parse), one_certificate_expected (more than one), not_a_ca_certificate (basicConstraints without cA), certificate_expired, certificate_not_yet_valid',
      ),
    },
  },
  {
    method: 'get',
    path: '/org/trust-anchors',
    tags,
    summary: "List the organisation's own trust anchors, newest first (admin)",
    security,
    responses: {
      200: json(z.object({ trust_anchors: z.array(TrustAnchor) }), 'Anchors'),
      ...refusals(401, 403),
    },
  },
  {
    method: 'delete',
    path: '/org/trust-anchors/{anchor_id}',
    tags,
    summary: "Stop trusting one of the organisation's anchors (admin); it stops applying at once",
    security,
    request: { params: TrustAnchorParams },
    responses: {
      204: noContent('Deleted'),
      ...refusals(400, 401, 403, 404),
    },
  },
];
