/** Every certificate the service issued as operators and organisations see it: status and whether it is in use. */
import {
  CERTIFICATE_ROLES,
  certificateStatus,
  currentCa,
  currentSigningChain,
  listCertificateRows,
  newestUsable,
  type CertificateRole,
  type CertificateStatus,
  type Db,
} from '../db/repositories/certificates.js';
import type { CrlReason } from '../domain/crl-reasons.js';

export interface CertificateListing {
  role: CertificateRole;
  /** The organisation of an organisation's signing certificate; null for the service's own certificates. */
  org_id: string | null;
  serial: string;
  subject: string;
  issuer: string;
  not_before: Date;
  not_after: Date;
  status: CertificateStatus;
  revoked_at: Date | null;
  revocation_reason: CrlReason | null;
  fingerprint_sha256: string;
  /** The certificate in use for its role: the current root, sub-CA, signing leaf (service's or organisation's), TSA or OCSP responder certificate. */
  current: boolean;
}

/** Every certificate issued (or only `orgId`'s), CAs first, newest first within a role. */
export async function listCertificates(deps: { knex: Db }, filter: { orgId?: string } = {}): Promise<CertificateListing[]> {
  const now = new Date();
  const [rows, root, chain, tsaChain] = await Promise.all([
    listCertificateRows(deps.knex, filter),
    currentCa(deps.knex, 'root', now),
    currentSigningChain(deps.knex, now),
    currentSigningChain(deps.knex, now, 'tsa'),
  ]);
  const subCaId = chain?.subCa.id ?? (await currentCa(deps.knex, 'sub_ca', now))?.id;
  // The delegated OCSP responder the ocsp role signs with: the newest usable one under the current sub-CA.
  const responder = subCaId ? await newestUsable(deps.knex, 'ocsp', now, subCaId) : undefined;
  const current = new Set([root?.id, subCaId, chain?.leaf.id, tsaChain?.leaf.id, responder?.id]);
  // Each organisation's current certificate: its newest usable leaf (rows are newest first).
  const orgsSeen = new Set<string>();
  for (const c of rows) {
    if (c.org_id && !orgsSeen.has(c.org_id) && certificateStatus(c, now) === 'valid') {
      orgsSeen.add(c.org_id);
      current.add(c.id);
    }
  }
  const order = (r: CertificateRole) => CERTIFICATE_ROLES.indexOf(r);
  return rows
    .sort((a, b) => order(a.role) - order(b.role))
    .map((c) => ({
      role: c.role,
      org_id: c.org_id,
      serial: c.serial,
      subject: c.subject,
      issuer: c.issuer,
      not_before: c.not_before,
      not_after: c.not_after,
      status: certificateStatus(c, now),
      revoked_at: c.revoked_at,
      revocation_reason: c.revocation_reason,
      fingerprint_sha256: c.fingerprint_sha256,
      current: current.has(c.id),
    }));
}
