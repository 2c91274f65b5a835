/**
 * The OCSP responses every responder process shares, in Postgres (design: responder copies read pre-signed
 * responses from shared storage, so the vault signs once per certificate and validity window, not once per
 * copy). Only certificates this service issued are kept: a serial it never issued stays in each process's
 * own cache.
 *
 * Revocation safety: revokeCertificate deletes a serial's rows in the transaction that revokes it, and `put`
 * keeps a "good" response only while the certificate row, locked FOR SHARE, is still unrevoked. Whichever of
 * the two transactions takes the certificate row first, the other sees its result, so a "good" signed just
 * before a revocation is never left behind for other copies to serve.
 */
import type { Knex } from 'knex';
import type { OcspResponseStore, StoredOcspResponse } from './source.js';

interface Row {
  der: Buffer;
  produced_at: Date;
  this_update: Date;
  next_update: Date;
}

export function databaseResponseStore(knex: Knex): OcspResponseStore {
  return {
    async get(certIdHex) {
      const row = (await knex('ocsp_responses').where({ cert_id: certIdHex }).first('der', 'produced_at', 'this_update', 'next_update')) as Row | undefined;
      if (!row) return undefined;
      return { der: new Uint8Array(row.der), producedAt: row.produced_at, thisUpdate: row.this_update, nextUpdate: row.next_update };
    },

    async put(certIdHex, serialHex, response: StoredOcspResponse, good: boolean) {
      await knex.transaction(async (trx) => {
        const certificate = (await trx('certificates').where({ serial: serialHex }).forShare().first('revoked_at')) as { revoked_at: Date | null } | undefined;
        if (!certificate || (good && certificate.revoked_at)) return;
        const row = {
          cert_id: certIdHex,
          serial: serialHex,
          der: Buffer.from(response.der),
          produced_at: response.producedAt,
          this_update: response.thisUpdate,
          next_update: response.nextUpdate,
        };
        // A copy that signed later wins; an older response never replaces a newer one.
        await trx('ocsp_responses').insert(row).onConflict('cert_id').merge().where('ocsp_responses.this_update', '<', response.thisUpdate);
      });
    },
  };
}
