/** The crls table: every CRL the service issued; CRL numbers increase per issuer. */
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import { idsOfRole, type CertificateRole, type Db } from './certificates.js';

/** One CRL the service issued (migrations/002_pki.ts). */
export class Crl extends Model {
  static override tableName = 'crls';
  declare id: string;
  declare issuer_id: string;
  declare crl_number: number;
  declare this_update: Date;
  declare next_update: Date;
  declare der: Uint8Array;
  declare created_at: Date;
}

/** The issuer's CRL with the highest number. */
export async function newestCrlOfIssuer(db: Db, issuerId: string): Promise<Crl | undefined> {
  return Crl.query(db).where({ issuer_id: issuerId }).orderBy('crl_number', 'desc').first();
}

export async function insertCrl(
  db: Db,
  crl: { issuerId: string; crlNumber: number; thisUpdate: Date; nextUpdate: Date; der: Uint8Array },
): Promise<void> {
  await Crl.query(db).insert({
    id: randomUUID(),
    issuer_id: crl.issuerId,
    crl_number: crl.crlNumber,
    this_update: crl.thisUpdate,
    next_update: crl.nextUpdate,
    der: Buffer.from(crl.der),
  });
}

/** The newest CRL issued by any CA of `issuerRole` (what the CRL host serves under that CRL's name). */
function newestOfIssuerRole(db: Db, issuerRole: CertificateRole) {
  return Crl.query(db).whereIn('issuer_id', idsOfRole(db, issuerRole)).orderBy('created_at', 'desc');
}

export async function newestCrlByIssuerRole(db: Db, issuerRole: CertificateRole): Promise<Pick<Crl, 'der' | 'this_update' | 'next_update'> | undefined> {
  return newestOfIssuerRole(db, issuerRole).select('der', 'this_update', 'next_update').first();
}

/** thisUpdate of that CRL, without its bytes (a metric reads it on every scrape). */
export async function newestCrlThisUpdateByIssuerRole(db: Db, issuerRole: CertificateRole): Promise<Date | undefined> {
  const row = await newestOfIssuerRole(db, issuerRole).select('this_update').first();
  return row ? new Date(row.this_update) : undefined;
}
