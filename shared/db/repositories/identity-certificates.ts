/**
 * The identity_certificates table: which person (user) and organisation each identity certificate was issued to
 * (migrations/021_identity_certificates.ts). The certificate itself, and its revocation, is a row of certificates
 * (role `identity`), so CRLs and OCSP need nothing of their own. Every query is scoped to a user or an organisation.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Certificate, type Db } from './certificates.js';

export async function insertIdentityCertificate(db: Db, row: { orgId: string; userId: string; certificateId: string }): Promise<void> {
  await db('identity_certificates').insert({ id: randomUUID(), org_id: row.orgId, user_id: row.userId, certificate_id: row.certificateId });
}

/** How many identity certificates a user was ever issued (names the next vault key). */
export async function countUserIdentityCertificates(db: Db, userId: string): Promise<number> {
  const [{ n }] = (await db('identity_certificates').where({ user_id: userId }).count('* as n')) as [{ n: string | number }];
  return Number(n);
}

/** A user's identity certificates, newest first (revoked and expired ones included). */
export async function userIdentityCertificates(db: Db, orgId: string, userId: string, limit = 100): Promise<Certificate[]> {
  return Certificate.query(db)
    .join('identity_certificates as i', 'i.certificate_id', 'certificates.id')
    .where({ 'i.user_id': userId, 'i.org_id': orgId })
    .orderBy('certificates.created_at', 'desc')
    .limit(limit)
    .select('certificates.*');
}

/** The newest of a user's identity certificates that is unrevoked and valid at `now`, with the sub-CA that issued it. */
export async function currentUserIdentityCertificate(db: Db, orgId: string, userId: string, now = new Date()): Promise<Certificate | undefined> {
  return Certificate.query(db)
    .join('identity_certificates as i', 'i.certificate_id', 'certificates.id')
    .where({ 'i.user_id': userId, 'i.org_id': orgId })
    .whereNull('certificates.revoked_at')
    .where('certificates.not_before', '<=', now)
    .where('certificates.not_after', '>', now)
    .orderBy('certificates.created_at', 'desc')
    .select('certificates.*')
    .first();
}

/** Ids (certificates.id) of a user's identity certificates not yet revoked: what an admin's revocation asks for. */
export async function unrevokedUserIdentityCertificateIds(db: Db, userId: string): Promise<string[]> {
  const rows = (await db('identity_certificates as i')
    .join('certificates as c', 'c.id', 'i.certificate_id')
    .where('i.user_id', userId)
    .whereNull('c.revoked_at')
    .select('c.id')) as { id: string }[];
  return rows.map((r) => r.id);
}

/** A user's identity certificates not yet revoked, locked (FOR UPDATE) until `trx` ends: what a departure revokes. */
export async function lockUnrevokedUserIdentityCertificates(trx: Knex.Transaction, userId: string): Promise<Certificate[]> {
  return Certificate.query(trx)
    .join('identity_certificates as i', 'i.certificate_id', 'certificates.id')
    .where('i.user_id', userId)
    .whereNull('certificates.revoked_at')
    .orderBy('certificates.created_at')
    .select('certificates.*')
    .forUpdate();
}
