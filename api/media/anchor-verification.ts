import type { Knex } from 'knex';
import { anchorViewForHash, type AnchorStatus } from '../../shared/anchoring/views.js';
import { checkProofOnChain, type AnchorProof, type ChainCheck } from '../../shared/chain/proof.js';
import type { ChainConnection } from '../../shared/chain/provider.js';

export interface AnchorVerification {
  /** not_anchored: the service never signed a file with exactly these bytes (or they were changed). */
  status: AnchorStatus | 'not_anchored';
  proof_url: string | null;
  proof: AnchorProof | null;
  /**
   * For an anchored file: its proof checked against the chain itself. The root is recomputed from the SHA-256 of
   * the bytes sent and the sibling path, and compared with the input of the named transaction as the node returns
   * it, with the transaction's block; nothing of this is taken from the service's database.
   */
  chain: ChainCheck | null;
}

export async function verifyAnchor(knex: Knex, baseUrl: string, sha256: string, chain: ChainConnection | undefined): Promise<AnchorVerification> {
  const view = await anchorViewForHash(knex, baseUrl, sha256);
  if (!view) return { status: 'not_anchored', proof_url: null, proof: null, chain: null };
  if (!view.proof) return { status: view.status, proof_url: view.proof_url, proof: null, chain: null };
  const check: ChainCheck = chain
    ? await checkProofOnChain(() => chain.ready(), view.proof, sha256)
    : { result: 'unavailable', reason: 'no_chain_configured', message: 'this process has no CHAIN_RPC_URL to read the chain from' };
  return { status: view.status, proof_url: view.proof_url, proof: view.proof, chain: check };
}
