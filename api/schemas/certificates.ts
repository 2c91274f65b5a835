import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { CRL_REASON_NAMES } from '../../shared/domain/crl-reasons.js';
import { dateTime, errorResponse, errors, json, userOnly, userOrApiKey, refusals, uuid, uuidField } from './common.js';
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
    root: TrustCertificate.nullable().openapi({ description: "the service CA's root, the trust anchor (null for an external CA's certificate: its root is on the validators' trust lists, or if its record is missing)" }),
    source: z.enum(['service_ca', 'external_ca']).openapi({ description: "service_ca: the service's own CA (for private deployments: validators trust it only when given its root); external_ca: a CA the organisation chose, e.g. one on the C2PA Trust List" }),
    issued_by: z.string().openapi({ example: 'service CA, for private deployments' }),
    expires_in_days: z.number().int(),
    expiry_warning: z.string().nullable().openapi({ description: 'set from 30 days before expiry' }),
  })
  .openapi('SigningCertificate');

const OrgSigningCertificates = z.object({
  status: z.enum(['valid', 'not_issued', 'revoked', 'expired', 'no_issuing_ca']),
  current: SigningCertificate.nullable(),
  certificates: z
    .array(
      z.object({
        serial: z.string(),
        subject: z.string(),
        issuer: z.string(),
        issued_by: z.string(),
        source: z.enum(['service_ca', 'external_ca']),
        not_before: dateTime,
        not_after: dateTime,
        status: z.enum(['valid', 'revoked', 'expired', 'not_yet_valid']),
        revoked_at: dateTime.nullable(),
        revocation_reason: z.string().nullable(),
      }),
    )
    .openapi({ description: 'newest first' }),
});

const MAX_NAME = 64;
const nameValue = (what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_NAME, `must be at most ${MAX_NAME} characters`)
    // eslint-disable-next-line no-control-regex
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters')
    .openapi({ description: what });

export const ExternalRequestInput = z
  .object({
    CN: nameValue('common name'),
    O: nameValue('organisation'),
    C: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, 'must be two letters (ISO 3166)')
      .transform((c) => c.toUpperCase())
      .openapi({ description: 'country, two letters', example: 'GB' }),
    OU: nameValue('organisational unit').optional(),
    L: nameValue('locality').optional(),
    ST: nameValue('state or province').optional(),
  })
  .strict()
  .openapi('ExternalCertificateRequestInput');

export const ChainInput = z
  .object({
    chain_pem: z
      .string()
      .min(1, 'must not be empty')
      .max(64 * 1024, 'must be at most 64 KiB')
      .openapi({ description: 'PEM certificates: the leaf the CA issued for the request first, then the intermediates it gave' }),
  })
  .strict()
  .openapi('ExternalCertificateChainInput');

export const RevocationInput = z
  .object({
    reason: z.enum(CRL_REASON_NAMES).openapi({ description: 'the reason the CA gave (RFC 5280 CRLReason)' }),
    revoked_at: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).optional().openapi({ description: 'when the CA revoked it (default: now)' }),
  })
  .strict()
  .openapi('ExternalCertificateRevocationInput');

export const ExternalRequestParams = z.object({ request_id: uuidField });

export const ExternalRequest = z
  .object({
    request_id: uuid,
    status: z.enum(['creating_key', 'pending', 'accepted', 'failed']).openapi({ description: 'creating_key: the scheduler is making the key and CSR; pending: waiting for the CA chain; accepted: the certificate is stored' }),
    subject: z.object({ CN: z.string(), O: z.string(), C: z.string().optional().openapi({ description: "always for an organisation's request; for a person's, when PKI_COUNTRY is set" }), OU: z.string().optional(), L: z.string().optional(), ST: z.string().optional() }),
    csr_pem: z.string().nullable().openapi({ description: "PKCS#10, signed by the new vault key; asks for keyUsage digitalSignature (critical), EKU id-kp-documentSigning and id-kp-emailProtection (a person's identity certificate: EKU id-kp-emailProtection and their e-mail address in subjectAltName)" }),
    created_at: dateTime,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    certificate: z
      .object({
        serial: z.string(),
        subject: z.string(),
        issuer: z.string(),
        not_before: dateTime,
        not_after: dateTime,
        fingerprint_sha256: z.string(),
        chain_pem: z.string(),
        accepted_at: dateTime,
        revoked_at: dateTime.nullable(),
        revocation_reason: z.string().nullable(),
      })
      .nullable(),
  })
  .openapi('ExternalCertificateRequest');

/** What differs between an owner's request routes (an organisation's signing certificate, a person's identity one). */
export interface ExternalRequestWords {
  create: { summary: string; description: string; body?: z.ZodType; refusals409: string };
  list: string;
  get: string;
  chain: { summary: string; description: string; refused: string };
  withdraw: { summary: string; description?: string };
  revoked: { summary: string; description: string };
}

/** The routes of certificate requests to an external CA under `base`: create, list, one, chain, withdraw, revoked. */
export function externalRequestPaths(base: string, tags: string[], words: ExternalRequestWords): RouteConfig[] {
  const one = `${base}/{request_id}`;
  const params = ExternalRequestParams;
  const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
  return [
    {
      method: 'post',
      path: base,
      tags,
      summary: words.create.summary,
      description: words.create.description,
      security: userOnly,
      ...(words.create.body ? { request: { body: body(words.create.body) } } : {}),
      responses: {
        201: json(ExternalRequest, 'The request with its CSR'),
        ...(words.create.body ? refusals(400, 401, 403) : refusals(401, 403)),
        409: errorResponse(words.create.refusals409),
        503: errorResponse('The scheduler has not made the key within 15 s (csr_pending: the request stands), or the key vault failed'),
      },
    },
    { method: 'get', path: base, tags, summary: words.list, security: userOnly, responses: { 200: json(z.object({ requests: z.array(ExternalRequest) }), 'The requests'), ...refusals(401, 403) } },
    { method: 'get', path: one, tags, summary: words.get, security: userOnly, request: { params }, responses: { 200: json(ExternalRequest, 'The request'), ...refusals(401, 403, 404) } },
    {
      method: 'post',
      path: `${one}/chain`,
      tags,
      summary: words.chain.summary,
      description: words.chain.description,
      security: userOnly,
      request: { params, body: body(ChainInput) },
      responses: {
        200: json(ExternalRequest, 'The accepted request, with its certificate'),
        ...refusals(400, 401, 403, 404),
        409: errorResponse('The request is not waiting for a chain (request_not_pending)'),
        422: errorResponse(words.chain.refused),
      },
    },
    {
      method: 'post',
      path: `${one}/withdraw`,
      tags,
      summary: words.withdraw.summary,
      ...(words.withdraw.description ? { description: words.withdraw.description } : {}),
      security: userOnly,
      request: { params },
      responses: {
        200: json(ExternalRequest, 'The withdrawn request'),
        ...refusals(400, 401, 403, 404),
        409: errorResponse('The request is accepted or failed already (request_not_pending)'),
      },
    },
    {
      method: 'post',
      path: `${one}/revoked`,
      tags,
      summary: words.revoked.summary,
      description: words.revoked.description,
      security: userOnly,
      request: { params, body: body(RevocationInput) },
      responses: {
        200: json(ExternalRequest, 'The request, its certificate marked revoked'),
        ...refusals(400, 401, 403, 404),
        409: errorResponse('No accepted certificate (not_accepted), or already recorded (already_revoked)'),
      },
    },
  ];
}

const externalPaths = externalRequestPaths('/org/signing-certificate/requests', ['Organisation'], {
  create: {
    summary: 'Ask for a certificate from an external CA: a new vault key and a PKCS#10 request (CSR) for it',
    description:
      "The scheduler creates a new key in the key vault and the CSR, signed by that key, asking for the C2PA claim-signer extensions. Send csr_pem to the CA (one on the C2PA Trust List, for files every validator trusts), then post the chain it issues to .../chain.",
    body: ExternalRequestInput,
    refusals409: 'The organisation has MAX_PENDING_CERTIFICATE_REQUESTS requests open, their key being made or waiting for a chain (too_many_pending_requests): hand in a chain for one, or withdraw one',
  },
  list: "The organisation's certificate requests to external CAs, pending and past (newest first)",
  get: 'One certificate request',
  chain: {
    summary: 'Hand over the chain the CA issued for the request; once checked, the organisation signs with it',
    description:
      "Checked before use: the leaf holds the request's vault key, every certificate is within its validity, the leaf meets the C2PA claim-signer profile, and the chain verifies up to a trust anchor (the C2PA Trust List, or TRUST_ANCHORS_FILE). The previous certificates stay in the history; files signed with them keep them.",
    refused:
      "The chain is refused (422), the code naming the check: chain_invalid (not PEM certificates), chain_key_mismatch (the leaf does not hold this request's key), chain_expired (a certificate is outside its validity), chain_profile (the leaf does not meet the C2PA claim-signer profile: keyUsage, EKU, ...), chain_untrusted (it does not verify up to the C2PA Trust List or an anchor in TRUST_ANCHORS_FILE)",
  },
  withdraw: {
    summary: 'Withdraw a request waiting for its key or chain (one the CA will not answer): it then takes no chain, and no longer counts against MAX_PENDING_CERTIFICATE_REQUESTS',
    description: 'The request ends as failed with error code withdrawn and stays in the list. Its vault key stays (the API cannot delete keys); it never signs.',
  },
  revoked: {
    summary: 'Record that the external CA revoked the certificate: the organisation stops signing with it at once',
    description:
      "Revocation is the CA's; this records it here. Sign jobs then fail with no_signing_certificate (the service does not fall back to another certificate) until a new chain is accepted or an admin rotates to the service CA. The service's own OCSP responder and CRLs never answer for external certificates.",
  },
});

export const certificatesPaths: RouteConfig[] = [
  ...externalPaths,
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
      "status: valid (it signs), not_issued (the next signature issues one: an organisation from before per-organisation certificates, or its certificate expired), revoked (rotate, or accept a new external chain, to sign again), expired (an external CA's certificate expired: the same), no_issuing_ca (the operator has to run pki init). current names who issued it (issued_by, source: the service CA for private deployments, or an external CA) and warns from 30 days before expiry.",
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
