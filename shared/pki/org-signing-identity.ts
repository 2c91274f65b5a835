/**
 * What a sign job of an organisation signs with: its current certificate (an external CA's when one is in force,
 * see external-certificates.ts), the chain and its own vault key. The
 * worker never issues: an organisation without a certificate it may sign with asks the scheduler for one
 * (certificate-requests.ts) and waits, bounded; a job that still has none fails its attempt and is retried.
 */
import type { Knex } from 'knex';
import { currentSigningChain } from '../db/repositories/certificates.js';
import { VaultUnavailableError, type KeyVault } from '../vault/types.js';
import { ISSUANCE_WAIT_MS, obtainOrgCertificate } from './certificate-requests.js';
import { NoSigningCertificateError, type SigningIdentity } from './signing-identity.js';
import { signingKeyFor } from './signing-keys.js';
import { externalCertificateInForce, externalChainDer, externalUnusable } from './external-certificates.js';
import { externalUnusableError } from './org-signing.js';

/** The key is checked against the certificate once, then cached (signingKeyFor); one query when the certificate exists. */
export async function loadOrgSigningIdentity(deps: { knex: Knex; vault: KeyVault }, orgId: string, waitMs = ISSUANCE_WAIT_MS): Promise<SigningIdentity> {
  // Looked up for every job, so a revocation recorded by an admin stops the very next signature.
  const external = await externalCertificateInForce(deps.knex, orgId);
  if (external) {
    const unusable = externalUnusable(external);
    if (unusable) throw externalUnusableError(external, unusable);
    const chainDer = externalChainDer(external);
    const key = await signingKeyFor(deps.vault, { key_name: external.key_name, fingerprint_sha256: external.fingerprint_sha256, der: chainDer[0]!, role: 'leaf', serial: external.serial });
    return { key, chainDer, serial: external.serial, subject: external.certificate_subject, external: true };
  }
  let chain = await currentSigningChain(deps.knex, new Date(), 'leaf', orgId);
  if (!chain) {
    const outcome = await obtainOrgCertificate(deps.knex, orgId, 'ensure', waitMs);
    if (outcome.status === 'pending') throw new NoSigningCertificateError("the organisation's signing certificate is requested but not issued yet (the scheduler issues certificates)");
    if (outcome.status === 'failed') throw outcome.code === 'vault_unavailable' ? new VaultUnavailableError(outcome.message) : new NoSigningCertificateError(outcome.message);
    chain = await currentSigningChain(deps.knex, new Date(), 'leaf', orgId);
    if (!chain) throw new NoSigningCertificateError('the organisation has no valid signing certificate');
  }
  const key = await signingKeyFor(deps.vault, chain.leaf);
  return { key, chainDer: [new Uint8Array(chain.leaf.der), new Uint8Array(chain.subCa.der)], serial: chain.leaf.serial, subject: chain.leaf.subject };
}
