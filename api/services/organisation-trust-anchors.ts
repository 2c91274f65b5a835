/**
 * An organisation's own trust anchors (a partner agency's private CA): added by its admins, applied to its members'
 * signed-in verifications only (never the public verify, never another organisation's).
 */
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { actorOf } from '../audit-actor.js';
import { X509Certificate } from 'node:crypto';
import type { Knex } from '../../shared/db/knex.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import {
  deleteOrganisationTrustAnchor,
  insertOrganisationTrustAnchor,
  listOrganisationTrustAnchors,
  type OrganisationTrustAnchorView,
} from '../../shared/db/repositories/organisation-trust-anchors.js';
import type { Principal } from '../auth/principal.js';
import { ApiError, conflict, notFound } from '../errors.js';

/** Every signed-in verification reads them: a bound keeps that read, and c2pa-rs's anchor set, small. */
export const MAX_ORGANISATION_TRUST_ANCHORS = 50;

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

const refused = (code: string, message: string) => new ApiError('unprocessable', code, message);

/** The one CA certificate of `pem`, checked: it parses, is a CA (basicConstraints cA) and is within its validity period. */
export function caCertificateOf(pem: string, now = new Date()): X509Certificate {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) throw refused('certificate_unreadable', 'pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  if (blocks.length > 1) throw refused('one_certificate_expected', `pem holds ${blocks.length} certificates; add each CA certificate on its own`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(blocks[0]!);
  } catch (err) {
    throw refused('certificate_unreadable', `the certificate does not parse (${(err as Error).message})`);
  }
  if (!certificate.ca) throw refused('not_a_ca_certificate', 'the certificate is not a CA certificate (its basicConstraints do not say cA): add the CA that issues the signers, not a signer');
  if (Date.parse(certificate.validTo) <= now.getTime()) throw refused('certificate_expired', `the certificate expired on ${new Date(certificate.validTo).toISOString()}`);
  if (Date.parse(certificate.validFrom) > now.getTime()) throw refused('certificate_not_yet_valid', `the certificate is valid only from ${new Date(certificate.validFrom).toISOString()}`);
  return certificate;
}

const fingerprintHex = (certificate: X509Certificate) => certificate.fingerprint256.replaceAll(':', '').toLowerCase();

export async function addOrganisationTrustAnchor(knex: Knex, principal: Principal, input: { pem: string; label?: string | undefined }): Promise<OrganisationTrustAnchorView> {
  const certificate = caCertificateOf(input.pem);
  const existing = await listOrganisationTrustAnchors(principal.orgId, knex);
  const fingerprint = fingerprintHex(certificate);
  if (existing.some((a) => a.fingerprint_sha256 === fingerprint)) throw trustAnchorExists();
  if (existing.length >= MAX_ORGANISATION_TRUST_ANCHORS) {
    throw conflict(`the organisation has ${MAX_ORGANISATION_TRUST_ANCHORS} trust anchors, the most it may have; delete one first`, 'too_many_trust_anchors');
  }
  try {
    const row = await knex.transaction(async (trx) => {
      const inserted = await insertOrganisationTrustAnchor(
      {
        org_id: principal.orgId,
        label: input.label ?? null,
        pem: certificate.toString(),
        subject: certificate.subject.replaceAll('\n', ', '),
        fingerprint_sha256: fingerprint,
        not_after: new Date(certificate.validTo),
        added_by: principal.kind === 'user' ? principal.userId : null,
      },
      trx,
      );
      await recordAuditEvent(trx, { action: 'trust_anchor.created', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'trust_anchor', id: inserted.id }, details: { subject: inserted.subject, fingerprint_sha256: fingerprint } });
      return inserted;
    });
    return row.toPublic();
  } catch (err) {
    // Two admins adding the same certificate at once: the second meets the unique index.
    if (isUniqueViolation(err)) throw trustAnchorExists();
    throw err;
  }
}

const trustAnchorExists = () => conflict('the organisation already trusts this certificate', 'trust_anchor_exists');

export async function listOrgTrustAnchors(knex: Knex, orgId: string): Promise<OrganisationTrustAnchorView[]> {
  return (await listOrganisationTrustAnchors(orgId, knex)).map((a) => a.toPublic());
}

/** Deletes one of the organisation's anchors (another organisation's is not found); it stops applying at once. */
export async function removeOrganisationTrustAnchor(knex: Knex, orgId: string, anchorId: string, actor: AuditActor): Promise<void> {
  await knex.transaction(async (trx) => {
    if (!(await deleteOrganisationTrustAnchor(orgId, anchorId, trx))) throw notFound('trust anchor');
    await recordAuditEvent(trx, { action: 'trust_anchor.deleted', actor, orgId, target: { type: 'trust_anchor', id: anchorId } });
  });
}
