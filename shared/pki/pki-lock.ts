import type { Knex } from 'knex';

/** First key of every advisory lock the PKI takes ("PKI" in ASCII), so they cannot collide with other users. */
const NAMESPACE = 0x504b49;

/** What each lock serialises: issuance (init, rotate-leaf) and the publication of each CRL. */
const LOCKS = { issuance: 1, 'leaf.crl': 2, 'sub-ca.crl': 3 } as const;

export type PkiLock = keyof typeof LOCKS;

/**
 * Runs `fn` in a transaction holding a Postgres advisory lock (released at commit or rollback), so that
 * processes on any number of machines take turns: two inits never both issue a root, two schedulers never
 * issue the same CRL number. Works on PGlite too (one connection, so it never waits there).
 */
export async function withPkiLock<T>(knex: Knex, lock: PkiLock, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?::int, ?::int)', [NAMESPACE, LOCKS[lock]]);
    return fn(trx);
  });
}
