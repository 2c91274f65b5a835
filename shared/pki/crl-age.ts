/**
 * mss_crl_age_seconds{crl="leaf.crl" | "sub-ca.crl"}: seconds since the newest CRL of each name was issued
 * (its thisUpdate), read from the database when the registry is scraped (a CRL lives 7 days and is re-issued
 * well before; an age near that means the CRL job is not running).
 *
 * The gauge is defined here rather than in shared/metrics/metrics.ts because prom-client takes its `collect` callback at
 * construction, and the callback needs the database that registerCrlAgeCollector hands it later. It is exported
 * (and has values) only in processes that import this module: the CRL host (ocsp role) and the scheduler.
 */
import type { Knex } from 'knex';
import { Gauge } from 'prom-client';
import { newestCrlThisUpdateByIssuerRole } from '../db/repositories/crls.js';
import { registry } from '../metrics/registry.js';
import { CRL_ISSUER_ROLE, CRL_NAMES } from './crl-publisher.js';

/** A scrape waits at most this long for the database; past it the gauge keeps its previous values. */
const QUERY_TIMEOUT_MS = 2000;

/** Databases registered, newest last; the newest is read (one process has one database). */
const sources: Knex[] = [];
let refreshing: Promise<void> | undefined;

export const crlAgeSeconds = new Gauge({
  name: 'mss_crl_age_seconds',
  help: 'Seconds since the newest CRL of each name was issued (thisUpdate); a CRL lives 7 days',
  labelNames: ['crl'] as const,
  registers: [registry],
  // Never rejects (a failed scrape would hide every other metric): a database that is down or slow leaves the
  // previous values in place.
  collect: () => {
    const knex = sources.at(-1);
    if (!knex) return undefined;
    refreshing ??= refreshCrlAge(knex).finally(() => (refreshing = undefined));
    return refreshing;
  },
});

/** Sets the gauge from the database now. Never throws; on failure or timeout the gauge is left as it was. */
export async function refreshCrlAge(knex: Knex, timeoutMs = QUERY_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    timer.unref();
  });
  try {
    // The newest CRL of a name, as the CRL host serves it (shared/pki/publications.ts readPublication).
    const read = Promise.all(CRL_NAMES.map(async (name) => [name, await newestCrlThisUpdateByIssuerRole(knex, CRL_ISSUER_ROLE[name])] as const));
    read.catch(() => undefined); // a query failing after the timeout won the race
    const newest = await Promise.race([read, timeout]);
    if (!newest) return;
    const now = Date.now();
    for (const [name, thisUpdate] of newest) {
      if (thisUpdate) crlAgeSeconds.set({ crl: name }, Math.max(0, (now - thisUpdate.getTime()) / 1000));
      else crlAgeSeconds.remove({ crl: name }); // none issued yet
    }
  } catch {
    // Database down: keep the last values (their staleness shows as a flat line, and the scrape still works).
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Makes scrapes of this process report the CRL ages read through `knex`. Call once per role that should export
 * them (ocsp role: the CRL host; the scheduler: the CRL job). Returns the function that undoes it.
 */
export function registerCrlAgeCollector(knex: Knex): () => void {
  sources.push(knex);
  return () => {
    const i = sources.lastIndexOf(knex);
    if (i >= 0) sources.splice(i, 1);
  };
}
