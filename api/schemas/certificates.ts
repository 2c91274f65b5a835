import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, errorResponse, errors, json, userOnly, userOrApiKey, refusals } from './common.js';
import { z } from './zod.js';

const TrustCertificate = z
  .object({
    role: z.enum(['root', 'sub_ca', 'leaf', 'tsa']),
    serial: z.string(),
    subject: z.string(),
    issuer: z.string(),
    not_before: dateTime,
    not_after: dateTime,
    fingerprint_sha256: z.string(),
    pem: z.string(),
  })
  .openapi('TrustCertificate');

const SigningCertificate = z
  .object({
    serial: z.string().openapi({ description: 'lowercase hex', example: '3f2a9c0d4e5b6a7f8091a2b3c4d5e6f7' }),
    subject: z.string().openapi({ example: 'CN=Daily Planet,O=Daily Planet' }),
    issuer: z.string(),
    not_before: dateTime,
    not_after: dateTime,
    fingerprint_sha256: z.string().openapi({ description: 'SHA-256 of the DER certificate, lowercase hex' }),
    certificate_pem: z.string().openapi({ description: 'the leaf certificate, PEM' }),
    chain_pem: z.string().openapi({ description: 'leaf then sub-CA, PEM' }),
    chain: z.array(TrustCertificate).openapi({ description: 'leaf, then sub-CA' }),
    root: TrustCertificate.nullable().openapi({ description: 'the trust anchor (null if its record is missing)' }),
  })
  .openapi('SigningCertificate');

const OrgSigningCertificates = z.object({
  status: z.enum(['valid', 'not_issued', 'revoked', 'no_issuing_ca']),
  current: SigningCertificate.nullable(),
  certificates: z
    .array(
      z.object({
        serial: z.string(),
        subject: z.string(),
        not_before: dateTime,
        not_after: dateTime,
        status: z.enum(['valid', 'revoked', 'expired', 'not_yet_valid']),
        revoked_at: dateTime.nullable(),
        revocation_reason: z.string().nullable(),
      }),
    )
    .openapi({ description: 'newest first' }),
});

export const certificatesPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/v1/certificates/signing',
    tags: ['Trust'],
    summary: "The caller's organisation's current signing certificate and its chain",
    description:
      "Each organisation signs with its own certificate (subject O and CN: the organisation's name), issued by the service's sub-CA. An organisation from before per-organisation certificates has one once it signs its first file.",
    security: userOrApiKey,
    responses: {
      200: json(SigningCertificate, 'The signing certificate'),
      401: errors.unauthenticated,
      503: errorResponse('The organisation has no valid signing certificate (not issued yet, revoked, or no issuing CA)'),
    },
  },
  {
    method: 'get',
    path: '/org/signing-certificate',
    tags: ['Organisation'],
    summary: "The organisation's signing certificate (with its chain) and every certificate it had",
    description:
      'status: valid (it signs), not_issued (the next signature issues one: an organisation from before per-organisation certificates, or its certificate expired), revoked (rotate to sign again), no_issuing_ca (the operator has to run pki init).',
    security: userOnly,
    responses: {
      200: json(OrgSigningCertificates, 'The certificate state'),
      ...refusals(401, 403),
    },
  },
  {
    method: 'post',
    path: '/org/signing-certificate/rotate',
    tags: ['Organisation'],
    summary: 'Issue the organisation a new signing certificate with a new vault key; it signs from now on',
    description:
      "The previous certificate is not revoked: files signed with it stay valid (an operator revokes a compromised one with the pki CLI). The subject carries the organisation's current name.",
    security: userOnly,
    responses: {
      201: json(SigningCertificate, 'The new certificate'),
      ...refusals(401, 403),
      503: errorResponse('No issuing CA, the key vault is unavailable, or the scheduler (which issues certificates) has not answered within 15 s (issuance_pending: the request stands)'),
    },
  },
];
