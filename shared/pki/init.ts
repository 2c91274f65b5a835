/**
 * Setting up the service's certificate authority: root -> sub-CA -> leaf + TSA certificate.
 *
 * Issuance runs in one transaction under the issuance advisory lock, with every vault signature inside it:
 * a vault that fails half way rolls everything back (no root without its sub-CA), and two inits started at
 * once issue one chain.
 */
import { newestUsable, type Certificate, type CertificateRole, type Db } from '../db/repositories/certificates.js';
import type { VaultKey } from '../vault/types.js';
import { certificateLogFields } from './certificate-log.js';
import { refreshPublications, type CrlOutcome } from './crl-publisher.js';
import { PkiError } from './errors.js';
import { announceIssued, issueEndEntity, issueRoot, issueSubCaUnder } from './issuance.js';
import type { PkiDeps } from './pki-deps.js';
import { withPkiLock } from './pki-lock.js';
import { holdsKey } from './signing-keys.js';

/** The newest usable certificate of `role` under `issuerId`, if it is for `key` (else a new one is due). */
async function reusable(db: Db, role: CertificateRole, key: VaultKey, now: Date, issuerId?: string): Promise<Certificate | undefined> {
  const found = await newestUsable(db, role, now, issuerId);
  return found && found.key_name === key.name && holdsKey(found, key) ? found : undefined;
}

export interface InitPkiResult {
  root: Certificate;
  subCa: Certificate;
  leaf: Certificate;
  /** The time-stamping certificate of the service's TSA. */
  tsa: Certificate;
  /** The certificates this run issued (empty when a valid chain existed). */
  issued: Certificate[];
  crls: CrlOutcome[];
}

/**
 * Creates (or reuses) the four vault keys and issues whatever part of root -> sub-CA -> leaf + TSA has no valid
 * certificate for the configured key; then brings the CRLs and CA certificate files up to date.
 * Running it again issues nothing.
 */
export async function initPki(deps: PkiDeps): Promise<InitPkiResult> {
  const { config, vault } = deps;
  const names = [config.rootKeyName, config.subCaKeyName, config.leafKeyName, config.tsaKeyName];
  if (new Set(names).size !== names.length) {
    throw new PkiError('ROOT_KEY_NAME, SUB_CA_KEY_NAME, LEAF_KEY_NAME and TSA_KEY_NAME must name four different keys', 'invalid');
  }
  const [rootKey, subCaKey, leafKey, tsaKey] = (await Promise.all(names.map((n) => vault.ensureKey(n)))) as [VaultKey, VaultKey, VaultKey, VaultKey];

  const chain = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const issued: Certificate[] = [];
    let root = await reusable(trx, 'root', rootKey, now);
    if (!root) {
      root = await issueRoot(trx, config, rootKey, now);
      issued.push(root);
    }
    let subCa = await reusable(trx, 'sub_ca', subCaKey, now, root.id);
    if (!subCa) {
      subCa = await issueSubCaUnder(trx, config, root, rootKey, subCaKey, now);
      issued.push(subCa);
    }
    let leaf = await reusable(trx, 'leaf', leafKey, now, subCa.id);
    if (!leaf) {
      leaf = await issueEndEntity(trx, config, 'leaf', subCa, subCaKey, leafKey, now);
      issued.push(leaf);
    }
    let tsa = await reusable(trx, 'tsa', tsaKey, now, subCa.id);
    if (!tsa) {
      tsa = await issueEndEntity(trx, config, 'tsa', subCa, subCaKey, tsaKey, now);
      issued.push(tsa);
    }
    return { root, subCa, leaf, tsa, issued };
  });

  for (const c of chain.issued) deps.logger?.info(certificateLogFields(c), 'certificate issued');
  await announceIssued(deps, chain.issued);
  const { crls } = await refreshPublications(deps, { when: 'stale' });
  return { ...chain, crls };
}
