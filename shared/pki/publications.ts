/**
 * What {crl_url} publishes, read from the database (the source of truth, shared by every host): the newest
 * CRL of each kind and the current CA certificates. Any number of hosts on any machines serve the same bytes.
 */
import type { Knex } from 'knex';
import { currentCa } from '../db/repositories/certificates.js';
import { newestCrlByIssuerRole } from '../db/repositories/crls.js';
import { PUBLICATION_FILES } from './certificate-templates.js';
import { CRL_ISSUER_ROLE, type CrlName } from './crl-publisher.js';
import type { PublicationName } from './publication-files.js';

export interface Publication {
  name: PublicationName;
  der: Uint8Array;
  contentType: 'application/pkix-crl' | 'application/pkix-cert';
  /** CRL thisUpdate, or when the certificate was issued. */
  lastModified: Date;
  /** CRL nextUpdate: the bytes must not be served (or cached) beyond it. */
  expires?: Date;
}

export const PUBLICATION_NAMES: readonly PublicationName[] = Object.values(PUBLICATION_FILES);

export function isPublicationName(name: string): name is PublicationName {
  return (PUBLICATION_NAMES as readonly string[]).includes(name);
}

function isCrlName(name: PublicationName): name is CrlName {
  return name === PUBLICATION_FILES.leafCrl || name === PUBLICATION_FILES.subCaCrl;
}

/** The newest CRL issued by a CA of the CRL's role; the CA certificate for .cer names. Undefined when none. */
export async function readPublication(knex: Knex, name: PublicationName, now: Date = new Date()): Promise<Publication | undefined> {
  if (isCrlName(name)) {
    const row = await newestCrlByIssuerRole(knex, CRL_ISSUER_ROLE[name]);
    if (!row) return undefined;
    return { name, der: row.der, contentType: 'application/pkix-crl', lastModified: row.this_update, expires: row.next_update };
  }
  const ca = await currentCa(knex, name === PUBLICATION_FILES.rootCertificate ? 'root' : 'sub_ca', now);
  if (!ca) return undefined;
  return { name, der: ca.der, contentType: 'application/pkix-cert', lastModified: ca.created_at };
}
