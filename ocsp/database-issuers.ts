/**
 * The OCSP responder's view of the database: the CAs it answers for (with their vault keys) and the status
 * of a serial among the certificates they issued.
 *
 * An OCSP CertID names its issuer by name hash + key hash only, so CA certificates with the same subject and
 * key (a sub-CA re-issued under a new root, for instance) are one issuer here: a serial is looked up among
 * the certificates any of them issued.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { newestOcspResponder, revocationOf, unexpiredCas } from '../shared/db/repositories/certificates.js';
import { certificateLogFields } from '../shared/pki/certificate-log.js';
import { readCertificate } from '../shared/pki/certificate.js';
import type { OcspCertStatus } from '../shared/pki/ocsp-response.js';
import { samePublicKey } from '../shared/pki/tbs-signer.js';
import { VaultKeyNotFoundError, type KeyVault } from '../shared/vault/types.js';
import type { OcspIssuer, OcspStatusLookup } from './source.js';

export interface DatabaseIssuer extends OcspIssuer {
  /** Rows of every usable CA certificate with this subject and key, newest first. */
  certificateIds: string[];
  subject: string;
}

/** A responder certificate is used only while it outlives the answers it signs (their validity, a day by default). */
const RESPONDER_MARGIN_MS = 2 * 86_400_000;

/**
 * Every root and sub-CA that is neither revoked nor expired and whose vault key still holds its public key, each with
 * its delegated responder (the newest usable `ocsp` certificate it issued with a key in the vault, valid for two more
 * days) when it has one: the scheduler issues and rotates those (shared/pki/ocsp-responder.ts).
 * A CA whose key is gone from the vault is left out (logged); a vault that cannot be reached fails the load.
 */
export async function loadOcspIssuers(
  knex: Knex,
  vault: KeyVault,
  logger?: Pick<Logger, 'warn'>,
  now: Date = new Date(),
): Promise<DatabaseIssuer[]> {
  const rows = await unexpiredCas(knex, now);
  const byIdentity = new Map<string, DatabaseIssuer>();
  for (const row of rows) {
    const parts = readCertificate(row.der);
    const identity = `${Buffer.from(parts.subjectNameDer).toString('hex')}/${Buffer.from(parts.spkiDer).toString('hex')}`;
    const known = byIdentity.get(identity);
    if (known) {
      known.certificateIds.push(row.id);
      continue;
    }
    let key;
    try {
      key = await vault.getKey(row.key_name);
    } catch (err) {
      if (!(err instanceof VaultKeyNotFoundError)) throw err;
      logger?.warn({ ...certificateLogFields(row), key: row.key_name }, 'CA key is not in the vault; the OCSP responder will not answer for this CA');
      continue;
    }
    if (!samePublicKey(key.publicKeySpki, parts.spkiDer)) {
      logger?.warn({ ...certificateLogFields(row), key: row.key_name }, 'vault key no longer matches this CA certificate; the OCSP responder will not answer for it');
      continue;
    }
    byIdentity.set(identity, { certificate: new Uint8Array(row.der), key, certificateIds: [row.id], subject: row.subject });
  }
  const issuers = [...byIdentity.values()];
  for (const issuer of issuers) {
    const row = await newestOcspResponder(knex, issuer.certificateIds, now);
    if (!row || row.not_after.getTime() - now.getTime() < RESPONDER_MARGIN_MS) continue;
    let key;
    try {
      key = await vault.getKey(row.key_name);
    } catch (err) {
      if (!(err instanceof VaultKeyNotFoundError)) throw err;
      logger?.warn({ ...certificateLogFields(row), key: row.key_name }, 'OCSP responder key is not in the vault; the CA signs its own OCSP answers');
      continue;
    }
    if (!samePublicKey(key.publicKeySpki, readCertificate(row.der).spkiDer)) {
      logger?.warn({ ...certificateLogFields(row), key: row.key_name }, 'vault key no longer matches the OCSP responder certificate; the CA signs its own OCSP answers');
      continue;
    }
    issuer.responder = { certificate: new Uint8Array(row.der), key };
  }
  return issuers;
}

/**
 * Status from the certificates table: revoked (time, reason) when revoked; good when issued by this CA;
 * `unissued` (spec: good; OCSP_UNISSUED_STATUS may say unknown) for serials this CA never issued.
 */
export function databaseStatusLookup(
  knex: Knex,
  unissued: Config['ocspUnissuedStatus'],
): OcspStatusLookup<DatabaseIssuer> {
  return async (issuer, serialHex) => {
    const row = await revocationOf(knex, issuer.certificateIds, serialHex);
    if (!row) return { status: unissued };
    if (row.revoked_at) {
      const status: OcspCertStatus = { status: 'revoked', revokedAt: row.revoked_at };
      // RFC 5280 5.3.1 (and RFC 6960 via it): leave the reason out rather than say "unspecified".
      if (row.revocation_reason && row.revocation_reason !== 'unspecified') status.reason = row.revocation_reason;
      return status;
    }
    return { status: 'good' };
  };
}
