import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { CRL_REASON_NAMES } from '../../shared/domain/crl-reasons.js';
import { externalRequestPaths } from './certificates.js';
import { dateTime, errorResponse, json, nameField, refusals, userOnly, uuid, uuidField } from './common.js';
import { z } from './zod.js';

/** A person's name: the CN of their identity certificate (X.520: at most 64 characters). */
export const personName = nameField(64).openapi({ description: "the person's name, as their identity certificate names them (CN)", example: 'Jane Doe' });

export const MePatch = z.object({ name: personName }).openapi('MePatch');

export const IdentityRevocationInput = z
  .object({
    reason: z
      .enum(CRL_REASON_NAMES)
      .exclude(['removeFromCRL'])
      .optional()
      .openapi({ description: 'RFC 5280 CRLReason written in the CRL and OCSP answers (default privilegeWithdrawn)' }),
  })
  // Nothing else is taken: a misspelt field is refused rather than silently revoking with the default reason.
  .strict();
export const IdentityUserParams = z.object({ user_id: uuidField });

const IdentityCertificate = z
  .object({
    serial: z.string(),
    subject: z.string().openapi({ example: 'CN=Jane Doe, O=Daily Planet' }),
    issuer: z.string(),
    email: z.string().openapi({ description: 'the e-mail address in subjectAltName (rfc822Name)' }),
    not_before: dateTime,
    not_after: dateTime,
    fingerprint_sha256: z.string(),
    status: z.enum(['valid', 'revoked', 'expired', 'not_yet_valid']),
    revoked_at: dateTime.nullable(),
    revocation_reason: z.string().nullable(),
    certificate_pem: z.string(),
    chain_pem: z.string().openapi({ description: 'the certificate, then the sub-CA that issued it (an external CA: the intermediates it gave)' }),
    issued_by: z.string(),
  })
  .openapi('IdentityCertificate');

const IdentityStatus = z
  .object({
    name: z.string().nullable(),
    current: IdentityCertificate.nullable().openapi({ description: 'the certificate "sign as me" uses (the service CA\'s, or one accepted from the organisation\'s external CA when that is newer); null when none may sign' }),
    certificates: z.array(IdentityCertificate).openapi({ description: "every identity certificate the service CA issued the user, newest first (those from an external CA: GET /auth/me/identity-certificate/requests)" }),
  })
  .openapi('IdentityCertificateStatus');

const issuancePending = errorResponse(
  'The scheduler (which issues certificates) has not answered within the wait (503, code issuance_pending), the service has no issuing CA (no_issuing_ca) or the vault is unreachable (vault_unavailable)',
);

const tags = ['Identity'];

export const identityCertificatePaths: RouteConfig[] = [
  {
    method: 'patch',
    path: '/auth/me',
    tags: ['Authentication'],
    summary: "Set the signed-in user's name",
    description: 'The name is the CN of identity certificates issued from now on; certificates already issued keep the name they were issued with.',
    security: userOnly,
    request: { body: { required: true, content: { 'application/json': { schema: MePatch } } } },
    responses: {
      200: json(z.object({ user_id: uuid, email: z.string(), name: z.string().nullable(), org_id: uuid, role: z.string() }), 'The user'),
      ...refusals(400, 401, 403),
    },
  },
  {
    method: 'post',
    path: '/auth/me/identity-certificate',
    tags,
    summary: 'Issue the signed-in user an X.509 identity certificate (CAWG identity, cawg.x509.cose)',
    description:
      "Subject CN = the user's name, O = the organisation's name; the user's e-mail address in subjectAltName; EKU emailProtection; a vault key of the user's own; issued by the service's sub-CA (through the scheduler). A new certificate each time; earlier ones stay valid until they expire or are revoked. 409 name_required when the user has no name (PATCH /auth/me).",
    security: userOnly,
    responses: {
      201: json(IdentityCertificate, 'The new certificate'),
      ...refusals(401, 403, 409),
      503: issuancePending,
    },
  },
  {
    method: 'get',
    path: '/auth/me/identity-certificate',
    tags,
    summary: "The signed-in user's identity certificates",
    security: userOnly,
    responses: {
      200: json(IdentityStatus, 'Current certificate and history'),
      ...refusals(401, 403),
    },
  },
  ...externalRequestPaths('/auth/me/identity-certificate/requests', tags, {
    create: {
      summary: "Ask for an identity certificate from the organisation's external CA: a new vault key of the user's own and a PKCS#10 request (CSR) for it",
      description:
        "The same flow as the organisation's signing certificate (POST /org/signing-certificate/requests), for the signed-in user: the scheduler creates the key and the CSR, subject CN = the user's name, O = the organisation's name (C = PKI_COUNTRY when set), the user's e-mail address in subjectAltName, keyUsage digitalSignature (critical), EKU id-kp-emailProtection. Send csr_pem to the organisation's CA, then post the chain it issues to .../chain. A user's requests count against MAX_PENDING_CERTIFICATE_REQUESTS apart from the organisation's. 409 name_required when the user has no name (PATCH /auth/me).",
      refusals409: 'The user has no name (name_required), or MAX_PENDING_CERTIFICATE_REQUESTS requests open (too_many_pending_requests): hand in a chain for one, or withdraw one',
    },
    list: "The signed-in user's identity certificate requests to the organisation's external CA, pending and past (newest first)",
    get: "One of the signed-in user's identity certificate requests",
    chain: {
      summary: 'Hand over the chain the external CA issued for the request; once checked, the user signs as a person with it',
      description:
        "Checked before use: the leaf holds the request's vault key, every certificate is within its validity, the leaf meets the CAWG X.509 identity profile (the C2PA claim-signer profile with EKU emailProtection) and names the user's e-mail address in subjectAltName, and the chain verifies up to a CAWG trust anchor: the organisation's trust anchors (/org/trust-anchors) or CAWG_TRUST_ANCHORS_FILE. From then on \"identity\" on POST /v1/media/sign signs with it, until a newer certificate (from either CA) replaces it. The service's own OCSP responder and CRLs never answer for it: revocation is the CA's.",
      refused:
        "The chain is refused (422), the code naming the check: chain_invalid (not PEM certificates), chain_key_mismatch (the leaf does not hold this request's key), chain_expired (a certificate is outside its validity), chain_profile (the leaf does not meet the CAWG X.509 identity profile, or does not name the user's e-mail address), chain_untrusted (it does not verify up to the organisation's trust anchors or CAWG_TRUST_ANCHORS_FILE)",
    },
    withdraw: { summary: 'Withdraw an identity certificate request waiting for its key or chain: it then takes no chain, and no longer counts against MAX_PENDING_CERTIFICATE_REQUESTS' },
    revoked: {
      summary: 'Record that the external CA revoked the identity certificate: the user stops signing as a person with it at once',
      description:
        "Revocation is the CA's; this records it here. Sign requests with identity are then 409 identity_certificate_missing (the service does not fall back to an older certificate) until a new chain is accepted or the service CA issues one (POST /auth/me/identity-certificate).",
    },
  }),
  {
    method: 'post',
    path: '/org/users/{user_id}/identity-certificate/revoke',
    tags,
    summary: "Revoke a user's identity certificates (admin)",
    description:
      "Every unrevoked identity certificate of the user is revoked by the scheduler: the OCSP responder answers revoked and leaf.crl lists it. Files signed before keep their organisation's signature; c2pa-rs judges the identity part at reading time (see the README). Deleting a user revokes them too (reason affiliationChanged), in the deletion's own transaction (see DELETE /org/users/{user_id}).",
    security: userOnly,
    request: { params: IdentityUserParams, body: { required: false, content: { 'application/json': { schema: IdentityRevocationInput } } } },
    responses: {
      200: json(z.object({ revoked: z.array(IdentityCertificate) }), 'The certificates, revoked'),
      ...refusals(400, 401, 403, 404),
      503: issuancePending,
    },
  },
];
