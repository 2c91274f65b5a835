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
import { lockRevocationState } from '../shared/db/repositories/certificates.js';
import { findOcspResponse, upsertNewerOcspResponse } from '../shared/db/repositories/ocsp-responses.js';
import type { OcspResponseStore, StoredOcspResponse } from './source.js';

export function databaseResponseStore(knex: Knex): OcspResponseStore {
  return {
    async get(certIdHex) {
      const row = await findOcspResponse(knex, certIdHex);
      if (!row) return undefined;
      return { der: new Uint8Array(row.der), producedAt: row.produced_at, thisUpdate: row.this_update, nextUpdate: row.next_update };
    },

    async put(certIdHex, serialHex, response: StoredOcspResponse, good: boolean) {
      await knex.transaction(async (trx) => {
        const certificate = await lockRevocationState(trx, serialHex);
        if (!certificate || (good && certificate.revoked)) return;
        // A copy that signed later wins; an older response never replaces a newer one.
        await upsertNewerOcspResponse(trx, {
          cert_id: certIdHex,
          serial: serialHex,
          der: response.der,
          produced_at: response.producedAt,
          this_update: response.thisUpdate,
          next_update: response.nextUpdate,
        });
      });
    },
  };
}
