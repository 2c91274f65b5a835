import { createHash } from 'node:crypto';

/**
 * The Merkle tree a fragmented MP4's c2pa.hash.bmff assertion carries (C2PA 2.x, "BMFF-based hash", Merkle trees), as
 * c2pa-rs 0.91 builds and checks it (utils/merkle.rs C2PAMerkleTree, assertions/bmff_hash.rs MerkleMap): leaves are
 * the fragments' hashes, in order; a parent is the hash of its two children concatenated; a layer's last node without
 * a sibling goes up unchanged. The assertion keeps one row of the tree (`hashes`: the root, or the row `maxProofs` up
 * from the leaves), and each fragment's `merkle` box the sibling hashes from its leaf up to that row (its proof).
 */

/** How many layers above the leaves a fragment's proof climbs (c2pa-rs's core.merkle_tree_max_proofs, default 5). */
export const MERKLE_MAX_PROOFS = 5;

const pair = (alg: string, left: Buffer, right: Buffer) => createHash(alg).update(left).update(right).digest();

/** The number of nodes in each layer, leaves first (C2PAMerkleTree::to_layout). */
export function merkleLayout(count: number): number[] {
  const layers = [count];
  while (layers.at(-1)! > 1) layers.push(Math.ceil(layers.at(-1)! / 2));
  return layers;
}

/** Every layer of the tree over `leaves`, leaves first, the root last (C2PAMerkleTree::from_leaves). */
export function merkleLayers(leaves: readonly Buffer[], alg: string): Buffer[][] {
  if (!leaves.length) throw new RangeError('a Merkle tree needs at least one leaf');
  const layers: Buffer[][] = [[...leaves]];
  for (let current = layers[0]!; current.length > 1; current = layers.at(-1)!) {
    const parent: Buffer[] = [];
    for (let i = 0; i < current.length; i += 2) parent.push(i + 1 === current.length ? current[i]! : pair(alg, current[i]!, current[i + 1]!));
    layers.push(parent);
  }
  return layers;
}

/** The layer the assertion keeps (c2pa-rs: `min(max_proofs, layers - 1)`), for a tree of `count` leaves. */
export function merkleRowIndex(count: number, maxProofs = MERKLE_MAX_PROOFS): number {
  return Math.min(maxProofs, merkleLayout(count).length - 1);
}

/** The sibling positions a leaf's proof takes its hashes from, layer by layer up to the kept row (get_proof_by_index). */
function proofPath(count: number, index: number, maxProofs: number): { layer: number; sibling: number }[] {
  if (index < 0 || index >= count) throw new RangeError(`leaf ${index} is not in a tree of ${count}`);
  const layout = merkleLayout(count);
  const path: { layer: number; sibling: number }[] = [];
  for (let layer = 0, at = index; layer < Math.min(maxProofs, layout.length); layer += 1, at = Math.floor(at / 2)) {
    const sibling = at % 2 === 1 ? at - 1 : at + 1;
    if (sibling < layout[layer]!) path.push({ layer, sibling });
  }
  return path;
}

/** How many hashes leaf `index`'s proof has: known from the tree's shape alone, before any leaf is hashed. */
export function merkleProofLength(count: number, index: number, maxProofs = MERKLE_MAX_PROOFS): number {
  return proofPath(count, index, maxProofs).length;
}

/** The proof of leaf `index`: the sibling hashes from the leaf up to the kept row. */
export function merkleProof(layers: readonly Buffer[][], index: number, maxProofs = MERKLE_MAX_PROOFS): Buffer[] {
  return proofPath(layers[0]!.length, index, maxProofs).map(({ layer, sibling }) => layers[layer]![sibling]!);
}

/**
 * Whether `leaf`, at `location` among `count` leaves, climbs with `proof` to its node in the kept `row`
 * (MerkleMap::check_merkle_tree). As c2pa-rs does, the row is recognised by its length among the tree's layers.
 */
export function merkleProofMatches(alg: string, tree: { count: number; row: readonly Uint8Array[] }, leaf: Uint8Array, location: number, proof: readonly Uint8Array[] | null): boolean {
  if (!Number.isInteger(location) || location < 0 || location >= tree.count) return false;
  let hash = Buffer.from(leaf);
  let index = location;
  let used = 0;
  for (const size of merkleLayout(tree.count)) {
    if (size === tree.row.length) break;
    const sibling = index % 2 === 1 ? index - 1 : index + 1;
    if (proof && sibling < size) {
      const other = proof[used];
      if (!other) return false;
      used += 1;
      hash = index % 2 === 1 ? pair(alg, Buffer.from(other), hash) : pair(alg, hash, Buffer.from(other));
    }
    index = Math.floor(index / 2);
  }
  const expected = tree.row[index];
  return expected !== undefined && Buffer.from(expected).equals(hash);
}
