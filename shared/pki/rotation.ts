/** Rotating the service's own end-entity certificates (signing leaf, TSA): a new one under the current sub-CA. */
import type { Certificate } from '../db/repositories/certificates.js';
import { certificateLogFields } from './certificate-log.js';
import { announceIssued, issueEndEntity, issuingSubCa } from './issuance.js';
import type { PkiDeps } from './pki-deps.js';
import { withPkiLock } from './pki-lock.js';

const ROTATED = {
  leaf: { noun: 'a leaf', logged: 'leaf certificate rotated' },
  tsa: { noun: 'a TSA certificate', logged: 'TSA certificate rotated' },
} as const;

/**
 * Issues a new end-entity certificate of `role` for `keyName` under the current sub-CA; being the newest, it is
 * used from now on.
 */
async function rotateEndEntity(deps: PkiDeps, role: 'leaf' | 'tsa', keyName: string): Promise<Certificate> {
  const key = await deps.vault.ensureKey(keyName);
  const issued = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const { subCa, subCaKey } = await issuingSubCa(trx, deps.vault, ROTATED[role].noun, now);
    return issueEndEntity(trx, deps.config, role, subCa, subCaKey, key, now);
  });
  deps.logger?.info(certificateLogFields(issued), ROTATED[role].logged);
  await announceIssued(deps, [issued]);
  return issued;
}

/** Issues a new leaf under the current sub-CA for LEAF_KEY_NAME; it signs from now on (newest wins). */
export function rotateLeaf(deps: PkiDeps): Promise<Certificate> {
  return rotateEndEntity(deps, 'leaf', deps.config.leafKeyName);
}

/** Issues a new time-stamping certificate for TSA_KEY_NAME under the current sub-CA; the TSA uses it from now on. */
export function rotateTsa(deps: PkiDeps): Promise<Certificate> {
  return rotateEndEntity(deps, 'tsa', deps.config.tsaKeyName);
}
