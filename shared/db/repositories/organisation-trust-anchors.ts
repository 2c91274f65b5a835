/** The organisation_trust_anchors table: CA certificates an organisation's admins trust for its own verifications. */
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import type { Knex } from '../knex.js';

export class OrganisationTrustAnchor extends Model {
  static override tableName = 'organisation_trust_anchors';
  declare id: string;
  declare org_id: string;
  declare label: string | null;
  declare pem: string;
  declare subject: string;
  declare fingerprint_sha256: string;
  declare not_after: Date;
  declare added_by: string | null;
  declare added_at: Date;

  toPublic(): OrganisationTrustAnchorView {
    return {
      anchor_id: this.id,
      label: this.label,
      subject: this.subject,
      fingerprint_sha256: this.fingerprint_sha256,
      not_after: this.not_after.toISOString(),
      added_by: this.added_by,
      added_at: this.added_at.toISOString(),
      pem: this.pem,
    };
  }
}

export interface OrganisationTrustAnchorView {
  anchor_id: string;
  label: string | null;
  subject: string;
  fingerprint_sha256: string;
  not_after: string;
  added_by: string | null;
  added_at: string;
  pem: string;
}

export type NewOrganisationTrustAnchor = Pick<OrganisationTrustAnchor, 'org_id' | 'label' | 'pem' | 'subject' | 'fingerprint_sha256' | 'not_after' | 'added_by'>;

/** Adds an anchor; a certificate the organisation already has is a unique violation (org_id, fingerprint_sha256). */
export async function insertOrganisationTrustAnchor(anchor: NewOrganisationTrustAnchor, db?: Knex): Promise<OrganisationTrustAnchor> {
  return OrganisationTrustAnchor.query(db).insert({ id: randomUUID(), ...anchor }).returning('*');
}

/** The organisation's anchors, newest first. */
export async function listOrganisationTrustAnchors(orgId: string, db?: Knex): Promise<OrganisationTrustAnchor[]> {
  return OrganisationTrustAnchor.query(db).where({ org_id: orgId }).orderBy('added_at', 'desc').orderBy('id');
}

/** Only the PEMs, for verification (read on every signed-in verify, so nothing else is fetched). */
export async function organisationTrustAnchorPems(orgId: string, db?: Knex): Promise<string[]> {
  const rows = await OrganisationTrustAnchor.query(db).select('pem').where({ org_id: orgId }).orderBy('added_at');
  return rows.map((r) => r.pem);
}

/** Deletes one of the organisation's anchors; false when it has none by that id. */
export async function deleteOrganisationTrustAnchor(orgId: string, id: string, db?: Knex): Promise<boolean> {
  return (await OrganisationTrustAnchor.query(db).delete().where({ id, org_id: orgId })) > 0;
}
