/** The ocsp_responses table: pre-signed OCSP responses every responder process shares, one per CertID. */
import type { Knex } from 'knex';
import type { Db } from './certificates.js';

export interface OcspResponseRow {
  cert_id: string;
  serial: string;
  der: Uint8Array;
  produced_at: Date;
  this_update: Date;
  next_update: Date;
}

export async function findOcspResponse(db: Db, certId: string): Promise<Omit<OcspResponseRow, 'cert_id' | 'serial'> | undefined> {
  return (await db('ocsp_responses').where({ cert_id: certId }).first('der', 'produced_at', 'this_update', 'next_update')) as
    | Omit<OcspResponseRow, 'cert_id' | 'serial'>
    | undefined;
}

/** Stores `row` unless the stored response for its CertID is as new or newer (a copy that signed later wins). */
export async function upsertNewerOcspResponse(trx: Knex.Transaction, row: OcspResponseRow): Promise<void> {
  await trx('ocsp_responses')
    .insert({ ...row, der: Buffer.from(row.der) })
    .onConflict('cert_id')
    .merge()
    .where('ocsp_responses.this_update', '<', row.this_update);
}

export async function deleteOcspResponsesOfSerial(db: Db, serial: string): Promise<void> {
  await db('ocsp_responses').where({ serial }).del();
}
