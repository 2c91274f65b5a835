/**
 * Issuing and publishing the two CRLs: leaf.crl (issuer: the current sub-CA) and sub-ca.crl (issuer: the
 * current root), plus the CA certificate files the certificates point to (root-ca.cer, sub-ca.cer).
 *
 * Each CRL is issued inside a transaction holding that CRL's advisory lock: the next CRL number is the
 * issuer's previous one + 1, the row goes into `crls` and the file is written before the lock is released.
 * So two publishers (schedulers, an operator, a revocation) take turns and never issue the same number,
 * and the file on disk is always the newest row. Postgres stays the source of truth: the {crl_url} host
 * serves the newest row, the files are for static hosting.
 */
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit/record.js';
import type { Config } from '../config.js';
import { currentCa, revokedCertificatesOf, type Db } from '../db/repositories/certificates.js';
import { insertCrl, newestCrlOfIssuer, type Crl } from '../db/repositories/crls.js';
import type { KeyVault } from '../vault/types.js';
import { PUBLICATION_FILES } from './certificate-templates.js';
import { createCrl, type RevokedEntry } from './crl.js';
import { withPkiLock } from './pki-lock.js';
import { writePublicationFile } from './publication-files.js';

export type CrlName = typeof PUBLICATION_FILES.leafCrl | typeof PUBLICATION_FILES.subCaCrl;
export const CRL_NAMES: readonly CrlName[] = [PUBLICATION_FILES.leafCrl, PUBLICATION_FILES.subCaCrl];

/** Which CA signs each CRL (spec: leaf.crl by the sub-CA key, sub-ca.crl by the root key). */
export const CRL_ISSUER_ROLE = { 'leaf.crl': 'sub_ca', 'sub-ca.crl': 'root' } as const satisfies Record<CrlName, 'sub_ca' | 'root'>;

export interface PublisherDeps {
  knex: Knex;
  vault: KeyVault;
  config: Pick<Config, 'dataDir'>;
}

/**
 * When to issue a new CRL:
 * - `always`: now (operator, revocation);
 * - `stale`: when the issuer has none yet or the newest is past half its life (start-up check);
 * - `since`: unless one was issued at or after `since` (a scheduled run: another scheduler got there first).
 */
export type PublishPolicy = { when: 'always' } | { when: 'stale' } | { when: 'since'; since: Date };

export interface CrlOutcome {
  name: CrlName;
  /** published: a new CRL was issued; kept: the newest one is still good; no_issuer: no current CA to sign. */
  action: 'published' | 'kept' | 'no_issuer';
  crlNumber?: number;
  thisUpdate?: Date;
  nextUpdate?: Date;
  revokedCount?: number;
  /** Serial of the signing CA. */
  issuerSerial?: string;
  /** Whether the file under <dataDir>/crl changed. */
  fileWritten: boolean;
}

/** The entries of an issuer's CRL: its revoked certificates. Unordered: createCrl sorts by serial value. */
async function revokedEntries(db: Db, issuerId: string): Promise<RevokedEntry[]> {
  const rows = await revokedCertificatesOf(db, issuerId);
  return rows.map((r) => ({ serialHex: r.serial, revokedAt: r.revoked_at, reason: r.revocation_reason ?? 'unspecified' }));
}

function isDue(policy: PublishPolicy, newest: Crl | undefined, now: Date): boolean {
  if (!newest || policy.when === 'always') return true;
  if (policy.when === 'since') return newest.created_at.getTime() < policy.since.getTime();
  const halfLife = (newest.next_update.getTime() - newest.this_update.getTime()) / 2;
  return now.getTime() >= newest.this_update.getTime() + halfLife;
}

/** Issues (if the policy says so) and writes one CRL. */
export async function publishCrl(deps: PublisherDeps, name: CrlName, policy: PublishPolicy = { when: 'always' }): Promise<CrlOutcome> {
  return withPkiLock(deps.knex, name, async (trx) => {
    const now = new Date();
    const issuer = await currentCa(trx, CRL_ISSUER_ROLE[name], now);
    if (!issuer) return { name, action: 'no_issuer', fileWritten: false };
    const newest = await newestCrlOfIssuer(trx, issuer.id);
    if (newest && !isDue(policy, newest, now)) {
      // Still good: make sure this host's file is it (a new machine, a deleted file).
      const fileWritten = await writePublicationFile(deps.config.dataDir, name, newest.der);
      return {
        name,
        action: 'kept',
        crlNumber: Number(newest.crl_number),
        thisUpdate: newest.this_update,
        nextUpdate: newest.next_update,
        issuerSerial: issuer.serial,
        fileWritten,
      };
    }
    const key = await deps.vault.getKey(issuer.key_name);
    const crl = await createCrl({
      issuerCertificateDer: issuer.der,
      issuerKey: key,
      crlNumber: Number(newest?.crl_number ?? 0) + 1,
      thisUpdate: now,
      revoked: await revokedEntries(trx, issuer.id),
    });
    await insertCrl(trx, { issuerId: issuer.id, crlNumber: Number(crl.crlNumber), thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate, der: crl.der });
    await recordAuditEvent(trx, {
      action: 'crl.published',
      actor: { type: 'service', role: 'pki' },
      orgId: null,
      target: { type: 'crl', id: name },
      details: { crl_number: Number(crl.crlNumber), issuer_serial: issuer.serial, revoked: crl.revokedCount, next_update: crl.nextUpdate },
    });
    // Written before commit, still under the lock, so files never go back to an older CRL. (Should the
    // commit itself then fail, the next run reuses this number for a newer list: harmless for clients.)
    const fileWritten = await writePublicationFile(deps.config.dataDir, name, crl.der);
    return {
      name,
      action: 'published',
      crlNumber: Number(crl.crlNumber),
      thisUpdate: crl.thisUpdate,
      nextUpdate: crl.nextUpdate,
      revokedCount: crl.revokedCount,
      issuerSerial: issuer.serial,
      fileWritten,
    };
  });
}

/** Both CRLs, leaf.crl first. */
export async function publishCrls(deps: PublisherDeps, policy: PublishPolicy = { when: 'always' }): Promise<CrlOutcome[]> {
  const out: CrlOutcome[] = [];
  for (const name of CRL_NAMES) out.push(await publishCrl(deps, name, policy));
  return out;
}

/** Writes root-ca.cer and sub-ca.cer (DER) of the current CAs; returns the names that changed. */
export async function writeCaCertificateFiles(deps: Pick<PublisherDeps, 'knex' | 'config'>): Promise<string[]> {
  const now = new Date();
  const written: string[] = [];
  const files = [
    [PUBLICATION_FILES.rootCertificate, 'root'],
    [PUBLICATION_FILES.subCaCertificate, 'sub_ca'],
  ] as const;
  for (const [name, role] of files) {
    const ca = await currentCa(deps.knex, role, now);
    if (ca && (await writePublicationFile(deps.config.dataDir, name, ca.der))) written.push(name);
  }
  return written;
}

/** Everything {crl_url} publishes, brought up to date under `policy`. */
export async function refreshPublications(
  deps: PublisherDeps,
  policy: PublishPolicy,
): Promise<{ crls: CrlOutcome[]; certificatesWritten: string[] }> {
  const certificatesWritten = await writeCaCertificateFiles(deps);
  return { crls: await publishCrls(deps, policy), certificatesWritten };
}
