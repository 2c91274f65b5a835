/**
 * Checks a signed file's on-chain anchor without trusting the service: only ethers and SHA-256, nothing from this
 * repository (copy it anywhere; it runs with `npx tsx` or, renamed to .mjs without the types, with plain node).
 *
 *   npx tsx bin/verify-anchor.ts <signed file> --rpc <chain JSON-RPC url> [--proof proof.json | --service <base url>]
 *                                [--sha256 <hex> instead of a file] [--expect-from <address>] [--min-confirmations N]
 *
 * The proof comes from a JSON file or from the service's public GET /v1/media/anchors/{sha256} (either way it is
 * only a claim: everything is recomputed or read from the chain). Exit code 0: verified; 1: the proof does not
 * hold; 2: usage error or the chain/proof could not be fetched.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { JsonRpcProvider } from 'ethers';

interface Step {
  side: 'left' | 'right';
  hash: string;
}
interface Proof {
  file_sha256: string;
  path: Step[];
  root: string;
  chain_id: number;
  transaction_hash: string;
  block_number: number;
  block_hash: string;
  from_address: string;
}

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** leaf = sha256(0x00 || file hash); up the path: sha256(0x01 || left || right). */
function rootFrom(fileSha256: string, path: Step[]): string {
  let h = sha256(Buffer.from([0x00]), Buffer.from(fileSha256, 'hex'));
  for (const step of path) {
    const sibling = Buffer.from(step.hash, 'hex');
    h = step.side === 'left' ? sha256(Buffer.from([0x01]), sibling, h) : sha256(Buffer.from([0x01]), h, sibling);
  }
  return h.toString('hex');
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function exit(code: number, message: string): never {
  (code === 0 ? process.stdout : process.stderr).write(`${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const rpc = arg('--rpc');
  const file = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : undefined;
  const given = arg('--sha256');
  if (!rpc || (!file && !given)) exit(2, 'usage: verify-anchor <signed file> --rpc <url> [--proof proof.json | --service <base url>] [--sha256 <hex>] [--expect-from <address>] [--min-confirmations N]');
  const fileSha256 = given ? given.toLowerCase() : createHash('sha256').update(readFileSync(file!)).digest('hex');

  let proof: Proof;
  const proofFile = arg('--proof');
  if (proofFile) {
    const parsed = JSON.parse(readFileSync(proofFile, 'utf8')) as Proof | { proof: Proof };
    proof = 'proof' in parsed ? parsed.proof : parsed;
  } else {
    const service = arg('--service');
    if (!service) exit(2, 'give --proof <file> or --service <base url>');
    const res = await fetch(`${service.replace(/\/+$/, '')}/v1/media/anchors/${fileSha256}`);
    if (res.status === 404) exit(1, `NOT ANCHORED: the service never anchored a file with sha256 ${fileSha256}`);
    const body = (await res.json()) as { status: string; proof: Proof | null };
    if (!body.proof) exit(2, `not anchored yet (status ${body.status}); try again later`);
    proof = body.proof;
  }

  // 1. The Merkle path leads from this file's hash to the root.
  const root = rootFrom(fileSha256, proof.path);
  if (root !== proof.root.toLowerCase()) exit(1, `FAILED: the proof's path does not lead from sha256 ${fileSha256} to root ${proof.root}`);

  // 2. The chain has that root as the input of the named transaction, mined in the named block.
  const provider = new JsonRpcProvider(rpc, proof.chain_id, { staticNetwork: true });
  try {
    const chainId = Number(BigInt(await provider.send('eth_chainId', [])));
    if (chainId !== proof.chain_id) exit(2, `the node at --rpc is chain ${chainId}; the proof is for chain ${proof.chain_id}`);
    const tx = await provider.getTransaction(proof.transaction_hash);
    if (!tx) exit(1, `FAILED: chain ${chainId} has no transaction ${proof.transaction_hash}`);
    const receipt = await provider.getTransactionReceipt(proof.transaction_hash);
    if (!receipt || receipt.status !== 1) exit(1, 'FAILED: the transaction is not mined (or failed)');
    if (tx.data.toLowerCase() !== `0x6d73736101${root}`) exit(1, `FAILED: the transaction's input is ${tx.data}, not 0x6d73736101 || ${root}`);
    if (receipt.blockNumber !== proof.block_number || receipt.blockHash !== proof.block_hash) exit(1, `FAILED: the transaction is in block ${receipt.blockNumber}, not ${proof.block_number}`);
    const expectFrom = arg('--expect-from');
    if (expectFrom && tx.from.toLowerCase() !== expectFrom.toLowerCase()) exit(1, `FAILED: sent by ${tx.from}, not ${expectFrom}`);
    const block = await provider.getBlock(receipt.blockNumber);
    const confirmations = (await provider.getBlockNumber()) - receipt.blockNumber + 1;
    const minimum = Number(arg('--min-confirmations') ?? '1');
    if (confirmations < minimum) exit(1, `FAILED: ${confirmations} confirmations, fewer than ${minimum}`);
    exit(
      0,
      `VERIFIED: sha256 ${fileSha256} is committed to by root ${root}, the input of transaction ${tx.hash} from ${tx.from} ` +
        `in block ${receipt.blockNumber} (${new Date(block!.timestamp * 1000).toISOString()}) on chain ${chainId}, ${confirmations} confirmations`,
    );
  } finally {
    provider.destroy();
  }
}

main().catch((err: unknown) => exit(2, `could not check: ${(err as Error).message?.split('\n')[0] ?? String(err)}`));
