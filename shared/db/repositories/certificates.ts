/**
 * The certificates table: what the service issued, and the questions asked of it ("the current CA of this role",
 * "the current signing chain", "the status of this serial").
 *
 * "Usable" means: not revoked and inside the validity window; "current": the newest usable by issuance (created_at).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Model } from 'objection';
import type { CrlReason } from '../../domain/crl-reasons.js';

export type Db = Knex | Knex.Transaction;

/** `ocsp`: the delegated OCSP responder's; `identity`: a person's CAWG identity certificate (identity_certificates names the person). */
export const CERTIFICATE_ROLES = ['root', 'sub_ca', 'leaf', 'tsa', 'ocsp', 'identity'] as const;
export type CertificateRole = (typeof CERTIFICATE_ROLES)[number];

/** Derived, never stored: revocation wins over the validity window. */
export type CertificateStatus = 'valid' | 'revoked' | 'expired' | 'not_yet_valid';

/** One certificate the service issued (migrations/002_pki.ts). */
export class Certificate extends Model {
  static override tableName = 'certificates';
  declare id: string;
  /** Canonical hex (shared/pki/serial.ts). */
  declare serial: string;
  declare role: CertificateRole;
  /** The issuing CA's row; null for a root. */
  declare issuer_id: string | null;
  /** The organisation a leaf signs for; null for CAs, the TSA and the service's own leaf. */
  declare org_id: string | null;
  /** Name of the subject key in the vault. */
  declare key_name: string;
  declare subject: string;
  declare issuer: string;
  declare not_before: Date;
  declare not_after: Date;
  declare der: Uint8Array;
  declare fingerprint_sha256: string;
  declare revoked_at: Date | null;
  declare revocation_reason: CrlReason | null;
  declare created_at: Date;

  status(now: Date = new Date()): CertificateStatus {
    return certificateStatus(this, now);
  }
}

export function certificateStatus(
  row: Pick<Certificate, 'revoked_at' | 'not_before' | 'not_after'>,
  now: Date = new Date(),
): CertificateStatus {
  if (row.revoked_at) return 'revoked';
  if (row.not_after.getTime() <= now.getTime()) return 'expired';
  if (row.not_before.getTime() > now.getTime()) return 'not_yet_valid';
  return 'valid';
}

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

export interface NewCertificate {
  serial: string;
  role: CertificateRole;
  issuerId: string | null;
  orgId?: string;
  keyName: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  der: Uint8Array;
  fingerprintSha256: string;
}

export async function insertCertificate(db: Db, c: NewCertificate): Promise<Certificate> {
  return Certificate.query(db)
    .insert({
      id: randomUUID(),
      serial: c.serial,
      role: c.role,
      issuer_id: c.issuerId,
      org_id: c.orgId ?? null,
      key_name: c.keyName,
      subject: c.subject,
      issuer: c.issuer,
      not_before: c.notBefore,
      not_after: c.notAfter,
      der: Buffer.from(c.der),
      fingerprint_sha256: c.fingerprintSha256,
    })
    .returning('*');
}

export async function findCertificateById(db: Db, id: string): Promise<Certificate | undefined> {
  return Certificate.query(db).findById(id);
}

export async function findCertificateBySerial(db: Db, serial: string): Promise<Certificate | undefined> {
  return Certificate.query(db).findOne({ serial });
}

/** Locks the row until `trx` ends: revocations of one certificate take turns. */
export async function findCertificateBySerialForUpdate(trx: Knex.Transaction, serial: string): Promise<Certificate | undefined> {
  return Certificate.query(trx).findOne({ serial }).forUpdate();
}

export async function markCertificateRevoked(trx: Knex.Transaction, id: string, revokedAt: Date, reason: CrlReason): Promise<Certificate> {
  return Certificate.query(trx).patchAndFetchById(id, { revoked_at: revokedAt, revocation_reason: reason });
}

/**
 * Whether `serial` is revoked, its row locked FOR SHARE until `trx` ends (so a revocation waits for the caller's
 * write, or the caller sees it); undefined when the service never issued it.
 */
export async function lockRevocationState(trx: Knex.Transaction, serial: string): Promise<{ revoked: boolean } | undefined> {
  const row = (await trx('certificates').where({ serial }).forShare().first('revoked_at')) as { revoked_at: Date | null } | undefined;
  return row && { revoked: row.revoked_at !== null };
}

/** Every certificate (or only `orgId`'s), newest first. */
export async function listCertificateRows(db: Db, filter: { orgId?: string } = {}): Promise<Certificate[]> {
  const query = Certificate.query(db).orderBy('created_at', 'desc');
  if (filter.orgId) query.where({ org_id: filter.orgId });
  return query;
}

/** An organisation's signing certificates, newest first. */
export async function orgLeafCertificates(db: Db, orgId: string, limit: number): Promise<Certificate[]> {
  return Certificate.query(db).where({ org_id: orgId, role: 'leaf' }).orderBy('created_at', 'desc').limit(limit);
}

export async function newestOrgLeaf(db: Db, orgId: string): Promise<Certificate | undefined> {
  return Certificate.query(db).where({ org_id: orgId, role: 'leaf' }).orderBy('created_at', 'desc').first();
}

/** Each organisation's newest leaf when it is unrevoked and expires between `now` and `until` (close to expiry). */
export async function orgLeavesExpiringBy(db: Db, now: Date, until: Date): Promise<Certificate[]> {
  const newest = db('certificates').where({ role: 'leaf' }).whereNotNull('org_id').distinctOn('org_id').orderBy([{ column: 'org_id' }, { column: 'created_at', order: 'desc' }]).select('id');
  return Certificate.query(db).whereIn('id', newest).whereNull('revoked_at').where('not_after', '>', now).where('not_after', '<=', until);
}

/** How many certificates an organisation was ever issued. */
export async function countOrgCertificates(db: Db, orgId: string): Promise<number> {
  const [{ n }] = (await db('certificates').where({ org_id: orgId }).count('* as n')) as [{ n: string | number }];
  return Number(n);
}

/** Unrevoked roots: the trust anchors a verification accepts. */
export async function unrevokedRoots(db: Db): Promise<Certificate[]> {
  return Certificate.query(db).where({ role: 'root' }).whereNull('revoked_at');
}

/** Roots and sub-CAs neither revoked nor expired at `now`, newest first (the CAs an OCSP responder answers for). */
export async function unexpiredCas(db: Db, now: Date): Promise<Certificate[]> {
  return Certificate.query(db).whereIn('role', ['root', 'sub_ca']).whereNull('revoked_at').where('not_after', '>', now).orderBy('created_at', 'desc');
}

/** Revocation of `serial` among the certificates issued by `issuerIds`; undefined when none of them issued it. */
export async function revocationOf(
  db: Db,
  issuerIds: readonly string[],
  serial: string,
): Promise<Pick<Certificate, 'revoked_at' | 'revocation_reason'> | undefined> {
  return Certificate.query(db).whereIn('issuer_id', issuerIds).where({ serial }).select('revoked_at', 'revocation_reason').first();
}

/**
 * The revoked certificates an issuer's CRL lists: only the three columns an entry needs, as plain rows (a CRL may
 * list very many; whole rows with their DER as objection models are slow to build). Unordered.
 */
export async function revokedCertificatesOf(db: Db, issuerId: string): Promise<{ serial: string; revoked_at: Date; revocation_reason: CrlReason | null }[]> {
  return (await db('certificates').where({ issuer_id: issuerId }).whereNotNull('revoked_at').select('serial', 'revoked_at', 'revocation_reason')) as {
    serial: string;
    revoked_at: Date;
    revocation_reason: CrlReason | null;
  }[];
}

/** A subquery of the ids of every certificate of `role`: for the CRLs' repository, which selects by issuer role. */
export function idsOfRole(db: Db, role: CertificateRole): Knex.QueryBuilder {
  return db('certificates').where({ role }).select('id');
}

/** Not revoked and inside the validity window at `now`. */
function whereUsable<Q extends Knex.QueryBuilder>(query: Q, prefix: string, now: Date): Q {
  return query
    .whereNull(`${prefix}revoked_at`)
    .where(`${prefix}not_before`, '<=', now)
    .where(`${prefix}not_after`, '>', now) as Q;
}

/** The newest usable certificate of `role` (optionally: issued by `issuerId`); never an organisation's leaf. */
export async function newestUsable(db: Db, role: CertificateRole, now: Date, issuerId?: string): Promise<Certificate | undefined> {
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

/**
 * The delegated OCSP responder certificate to sign with for a CA known by these rows (ocsp/database-issuers.ts): the
 * newest usable `ocsp` certificate any of them issued.
 */
export async function newestOcspResponder(db: Db, issuerIds: readonly string[], now: Date): Promise<Certificate | undefined> {
  if (issuerIds.length === 0) return undefined;
  return Certificate.query(db)
    .where({ role: 'ocsp' })
    .whereIn('issuer_id', issuerIds)
    .whereNull('revoked_at')
    .where('not_before', '<=', now)
    .where('not_after', '>', now)
    .orderBy('created_at', 'desc')
    .first();
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
