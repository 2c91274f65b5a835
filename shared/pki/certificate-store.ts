/**
 * The certificates table: storing what was issued, and the questions the authority and the trust API ask of it
 * ("the current CA of this role", "the current signing chain"; the CRL publisher reads its entries itself).
 *
 * "Current" means: newest by issuance (created_at) among those not revoked and inside their validity window.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Certificate, type CertificateRole } from '../db/models/certificate.js';
import type { IssuedCertificate } from './certificate-templates.js';

export type Db = Knex | Knex.Transaction;

const COLUMNS = [
  'id',
  'serial',
  'role',
  'issuer_id',
  'org_id',
  'key_name',
  'subject',
  'issuer',
  'not_before',
  'not_after',
  'der',
  'fingerprint_sha256',
  'revoked_at',
  'revocation_reason',
  'created_at',
] as const;

export async function insertCertificate(
  db: Db,
  input: { issued: IssuedCertificate; role: CertificateRole; issuerId: string | null; keyName: string; orgId?: string },
): Promise<Certificate> {
  const f = input.issued.facts;
  return Certificate.query(db)
    .insert({
      id: randomUUID(),
      serial: f.serialHex,
      role: input.role,
      issuer_id: input.issuerId,
      org_id: input.orgId ?? null,
      key_name: input.keyName,
      subject: f.subject,
      issuer: f.issuer,
      not_before: f.notBefore,
      not_after: f.notAfter,
      der: Buffer.from(input.issued.der),
      fingerprint_sha256: f.fingerprintSha256,
    })
    .returning('*');
}

/** Not revoked and inside the validity window at `now`. */
function whereUsable<Q extends Knex.QueryBuilder>(query: Q, prefix: string, now: Date): Q {
  return query
    .whereNull(`${prefix}revoked_at`)
    .where(`${prefix}not_before`, '<=', now)
    .where(`${prefix}not_after`, '>', now) as Q;
}

/** The newest usable certificate of `role` (optionally: issued by `issuerId`); never an organisation's leaf. */
export async function newestUsable(
  db: Db,
  role: CertificateRole,
  now: Date,
  issuerId?: string,
): Promise<Certificate | undefined> {
  const query = Certificate.query(db)
    .where({ role })
    .whereNull('org_id')
    .whereNull('revoked_at')
    .where('not_before', '<=', now)
    .where('not_after', '>', now)
    .orderBy('created_at', 'desc');
  if (issuerId !== undefined) query.where({ issuer_id: issuerId });
  return query.first();
}

/** The CA that issues for a role today: the current root, or the current sub-CA. */
export function currentCa(db: Db, role: 'root' | 'sub_ca', now: Date): Promise<Certificate | undefined> {
  return newestUsable(db, role, now);
}

export interface SigningChain {
  leaf: Certificate;
  subCa: Certificate;
}

/**
 * The certificate that signs: the newest usable leaf of `orgId` (the organisation's signing certificate; none: the
 * service's own leaf) whose sub-CA is usable too, with that sub-CA. One query, cheap enough to run for every sign
 * job. With role 'tsa': the same for the time-stamping certificate (returned as `leaf`: the end-entity certificate).
 */
export async function currentSigningChain(db: Db, now: Date, role: 'leaf' | 'tsa' = 'leaf', orgId?: string): Promise<SigningChain | undefined> {
  const query = db('certificates as l')
    .join('certificates as s', 's.id', 'l.issuer_id')
    .where('l.role', role)
    .where((q) => (orgId === undefined ? q.whereNull('l.org_id') : q.where('l.org_id', orgId)))
    .where('s.role', 'sub_ca')
    .orderBy('l.created_at', 'desc')
    .first([...COLUMNS.map((c) => `l.${c} as l_${c}`), ...COLUMNS.map((c) => `s.${c} as s_${c}`)]);
  whereUsable(query, 'l.', now);
  whereUsable(query, 's.', now);
  const row = (await query) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const pick = (prefix: string) => Certificate.fromDatabaseJson(Object.fromEntries(COLUMNS.map((c) => [c, row[`${prefix}${c}`]])));
  return { leaf: pick('l_'), subCa: pick('s_') };
}
