import { currentSigningChain, type Db } from '../db/repositories/certificates.js';
import { signingKeyFor } from '../pki/signing-keys.js';
import type { KeyVault } from '../vault/types.js';
import { NoTsaCertificateError } from './authority.js';
import type { TsaIdentity } from './token.js';

/**
 * What the service's TSA signs with: the newest valid, unrevoked time-stamping certificate (under a valid,
 * unrevoked sub-CA), its chain [TSA DER, sub-CA DER] and its vault key (checked against the certificate once,
 * then cached). One query per call; throws NoTsaCertificateError when there is none.
 */
export async function loadTsaIdentity(deps: { knex: Db; vault: KeyVault }): Promise<TsaIdentity> {
  const chain = await currentSigningChain(deps.knex, new Date(), 'tsa');
  if (!chain) throw new NoTsaCertificateError();
  const key = await signingKeyFor(deps.vault, chain.leaf);
  return {
    key,
    chainDer: [new Uint8Array(chain.leaf.der), new Uint8Array(chain.subCa.der)],
    serial: chain.leaf.serial,
    notBefore: chain.leaf.not_before,
    notAfter: chain.leaf.not_after,
  };
}
