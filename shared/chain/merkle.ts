/**
 * The Merkle tree that aggregates many files' hashes into one anchored root (as OpenTimestamps and Chainpoint do).
 *
 * Encoding (RFC 9162 / RFC 6962 Certificate Transparency hashing, with SHA-256):
 *
 *   leaf hash  = SHA-256(0x00 || file_sha256)          file_sha256: the 32-byte SHA-256 of the signed file
 *   node hash  = SHA-256(0x01 || left || right)
 *
 * The distinct 0x00 / 0x01 prefixes make a leaf impossible to pass off as an inner node (no second-preimage
 * tricks), so a proof can only lead to the root from a real file hash. Leaves keep their batch order; the tree
 * is RFC 9162's MTH: built bottom-up, pairing left to right, a level's last node without a partner is carried
 * up unchanged (not duplicated, not hashed alone). That gives every leaf at most ceil(log2 n) siblings.
 *
 * A proof is the list of siblings from the leaf up, each with its side: `left` means the sibling is the left
 * input, i.e. h = SHA-256(0x01 || sibling || h); `right` means h = SHA-256(0x01 || h || sibling). The leaf index
 * and tree size (RFC 9162 audit path) are given too; the sides make checking a one-line loop.
 */
import { createHash } from 'node:crypto';

export const LEAF_PREFIX = 0x00;
export const NODE_PREFIX = 0x01;

export interface ProofStep {
  /** Side of the sibling: `left` = SHA-256(0x01 || hash || current), `right` = SHA-256(0x01 || current || hash). */
  side: 'left' | 'right';
  /** The sibling, 64 lowercase hex digits. */
  hash: string;
}

export interface MerkleTree {
  root: Buffer;
  size: number;
  /** One proof per leaf, in leaf order. */
  proofs: ProofStep[][];
}

const HEX64 = /^[0-9a-f]{64}$/;

/** 32 bytes from a 64-digit hex string (any case, no prefix) or a 32-byte buffer. */
export function hash32(value: string | Uint8Array): Buffer {
  if (typeof value === 'string') {
    const hex = value.toLowerCase();
    if (!HEX64.test(hex)) throw new Error('expected a SHA-256 hash: 64 hex digits');
    return Buffer.from(hex, 'hex');
  }
  if (value.length !== 32) throw new Error(`expected a SHA-256 hash: 32 bytes, got ${value.length}`);
  return Buffer.from(value);
}

export function leafHash(fileSha256: string | Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(LEAF_PREFIX)).update(hash32(fileSha256)).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(NODE_PREFIX)).update(left).update(right).digest();
}

/** Builds the tree over files' SHA-256 hashes (in this order) and every leaf's proof. */
export function buildMerkleTree(fileHashes: ReadonlyArray<string | Uint8Array>): MerkleTree {
  const size = fileHashes.length;
  if (size === 0) throw new Error('a Merkle tree needs at least one leaf');
  const levels: Buffer[][] = [fileHashes.map((h) => leafHash(h))];
  while (levels[levels.length - 1]!.length > 1) {
    const below = levels[levels.length - 1]!;
    const above: Buffer[] = [];
    for (let i = 0; i < below.length; i += 2) above.push(i + 1 < below.length ? nodeHash(below[i]!, below[i + 1]!) : below[i]!);
    levels.push(above);
  }
  // A leaf's node on level L is at index (leaf >> L): pairing is left to right and a carried node keeps its place.
  const proofs: ProofStep[][] = [];
  for (let leaf = 0; leaf < size; leaf += 1) {
    const path: ProofStep[] = [];
    for (let level = 0; level < levels.length - 1; level += 1) {
      const index = leaf >> level;
      const sibling = index ^ 1;
      const nodes = levels[level]!;
      if (sibling >= nodes.length) continue; // carried up unchanged
      path.push({ side: index & 1 ? 'left' : 'right', hash: nodes[sibling]!.toString('hex') });
    }
    proofs.push(path);
  }
  return { root: levels[levels.length - 1]![0]!, size, proofs };
}

/** The root a proof leads to from a file's SHA-256. */
export function rootFromProof(fileSha256: string | Uint8Array, path: ReadonlyArray<ProofStep>): Buffer {
  let h = leafHash(fileSha256);
  for (const step of path) {
    const sibling = hash32(step.hash);
    if (step.side === 'left') h = nodeHash(sibling, h);
    else if (step.side === 'right') h = nodeHash(h, sibling);
    else throw new Error(`proof step side must be left or right, got ${String(step.side)}`);
  }
  return h;
}

/** Most siblings a proof in a tree of `size` leaves has: ceil(log2(size)). */
export function maxProofLength(size: number): number {
  return size <= 1 ? 0 : Math.ceil(Math.log2(size));
}
