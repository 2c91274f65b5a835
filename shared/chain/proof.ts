/**
 * The anchor proof of one file, and its check against the chain. A proof is self-contained: with it, the file
 * (or just its SHA-256) and any JSON-RPC endpoint of the named chain, anyone can check it with ethers and SHA-256
 * alone (README, "Checking an anchor without the service"; bin/verify-anchor.ts does it standalone).
 */
import type { JsonRpcProvider } from 'ethers';
import { ANCHOR_CALLDATA_PREFIX, anchorCalldata, rootFromCalldata } from './anchor-calldata.js';
import { rootFromProof, type ProofStep } from './merkle.js';
import { ChainMismatchError, describeChainError } from './provider.js';

export const PROOF_FORMAT = 'mss-anchor-v1';

export const PROOF_ENCODING =
  'leaf = sha256(0x00 || file_sha256); node = sha256(0x01 || left || right), path from leaf to root (side = side of the sibling); ' +
  `transaction: from the anchoring account to itself, value 0, input = ${ANCHOR_CALLDATA_PREFIX} || root`;

export interface AnchorProof {
  format: typeof PROOF_FORMAT;
  /** Human-readable statement of the encoding, so a proof explains itself. */
  encoding: string;
  /** SHA-256 of the signed file (hex). */
  file_sha256: string;
  leaf_index: number;
  tree_size: number;
  path: ProofStep[];
  root: string;
  chain_id: number;
  transaction_hash: string;
  block_number: number;
  block_hash: string;
  block_time: string;
  /** The service's anchoring account, sender (and receiver) of the transaction. */
  from_address: string;
  /** The transaction's input data, exactly. */
  calldata: string;
}

export function makeProof(p: Omit<AnchorProof, 'format' | 'encoding' | 'calldata'>): AnchorProof {
  return { format: PROOF_FORMAT, encoding: PROOF_ENCODING, ...p, calldata: anchorCalldata(p.root) };
}

export type ChainCheckFailure =
  | 'proof_mismatch'
  | 'transaction_not_found'
  | 'transaction_not_mined'
  | 'transaction_failed'
  | 'root_not_in_transaction'
  | 'sender_mismatch'
  | 'block_mismatch';

export type ChainCheck =
  | {
      /** The file's hash, through the path, leads to a root that is the input of the named, mined transaction. */
      result: 'verified';
      checked_against: 'chain';
      chain_id: number;
      transaction_hash: string;
      block_number: number;
      block_hash: string;
      block_time: string;
      confirmations: number;
      from_address: string;
    }
  | { result: 'failed'; checked_against: 'chain'; reason: ChainCheckFailure; message: string }
  | { result: 'unavailable'; reason: 'chain_unreachable' | 'wrong_chain' | 'no_chain_configured'; message: string };

const failed = (reason: ChainCheckFailure, message: string): ChainCheck => ({ result: 'failed', checked_against: 'chain', reason, message });

/**
 * Checks a proof against the chain, reading the transaction, its receipt and its block from the node (never from
 * the service's database). `fileSha256` is the hash of the bytes the verifier holds (default: the proof's own).
 */
export async function checkProofOnChain(
  connect: () => Promise<{ provider: JsonRpcProvider; chainId: number }>,
  proof: AnchorProof,
  fileSha256: string = proof.file_sha256,
): Promise<ChainCheck> {
  let computed: string;
  try {
    computed = rootFromProof(fileSha256, proof.path).toString('hex');
  } catch (err) {
    return failed('proof_mismatch', `the proof is malformed: ${(err as Error).message}`);
  }
  if (computed !== proof.root.toLowerCase()) return failed('proof_mismatch', 'the Merkle path does not lead from the file hash to the proof root');
  let provider: JsonRpcProvider;
  let chainId: number;
  try {
    ({ provider, chainId } = await connect());
  } catch (err) {
    return { result: 'unavailable', reason: err instanceof ChainMismatchError ? 'wrong_chain' : 'chain_unreachable', message: describeChainError(err) };
  }
  if (chainId !== proof.chain_id) {
    return { result: 'unavailable', reason: 'wrong_chain', message: `the configured chain is ${chainId}; the proof names chain ${proof.chain_id}` };
  }
  try {
    const tx = await provider.getTransaction(proof.transaction_hash);
    if (!tx) return failed('transaction_not_found', 'the chain has no transaction with this hash');
    const receipt = await provider.getTransactionReceipt(proof.transaction_hash);
    if (!receipt) return failed('transaction_not_mined', 'the transaction is not in a block');
    if (receipt.status !== 1) return failed('transaction_failed', 'the transaction failed');
    if (rootFromCalldata(tx.data) !== computed) return failed('root_not_in_transaction', "the transaction's input does not carry the root the file's proof leads to");
    if (tx.from.toLowerCase() !== proof.from_address.toLowerCase()) return failed('sender_mismatch', 'the transaction was sent by another account than the proof names');
    const block = await provider.getBlock(receipt.blockNumber);
    if (!block || block.hash !== receipt.blockHash) return failed('block_mismatch', 'the block of the transaction changed (chain reorganisation)');
    if (receipt.blockNumber !== proof.block_number || receipt.blockHash.toLowerCase() !== proof.block_hash.toLowerCase()) {
      return failed('block_mismatch', `the transaction is in block ${receipt.blockNumber}, not in the block the proof names`);
    }
    const head = await provider.getBlockNumber();
    return {
      result: 'verified',
      checked_against: 'chain',
      chain_id: chainId,
      transaction_hash: receipt.hash,
      block_number: receipt.blockNumber,
      block_hash: receipt.blockHash,
      block_time: new Date(block.timestamp * 1000).toISOString(),
      confirmations: Math.max(0, head - receipt.blockNumber + 1),
      from_address: tx.from,
    };
  } catch (err) {
    return { result: 'unavailable', reason: 'chain_unreachable', message: describeChainError(err) };
  }
}
