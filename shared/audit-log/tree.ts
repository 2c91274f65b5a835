/**
 * The audit log's Merkle tree, RFC 9162 §2.1: MTH over leaf hashes (each already SHA-256(0x00 || event)), inner
 * nodes SHA-256(0x01 || left || right), split at the largest power of two below n. Inclusion (§2.1.3) and
 * consistency (§2.1.4) proofs, and their checks (§2.1.3.2, §2.1.4.2) as an outside verifier runs them.
 *
 * The tree keeps every complete subtree's hash (level l holds the hashes of aligned subtrees of 2^l leaves), so a
 * proof costs O(log² n) hashes at most, not a pass over the leaves; it only grows (append).
 *
 * After archiving (`npm run audit -- export --before`), a tree starts from the archived prefix's frontier: the hashes
 * of the complete subtrees that make up its first `base` leaves (one per set bit of base, largest first). That is
 * enough for every root, inclusion and consistency proof at sizes of at least base; anything that needs a hash inside
 * the archived prefix throws ArchivedRangeError rather than answering a wrong hash.
 */
import { createHash } from 'node:crypto';

const HASH = 32;

function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
}

const EMPTY_ROOT = createHash('sha256').digest();

/** Largest power of two strictly below n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A hash the tree needs lies inside an archived prefix, whose inner hashes are no longer kept. */
export class ArchivedRangeError extends RangeError {
  constructor(readonly base: number) {
    super(`the first ${base} leaves are archived: this needs a hash inside them`);
    this.name = 'ArchivedRangeError';
  }
}

/**
 * One level's hashes in one growable buffer (a million leaves: 32 MB, not a million Buffer objects). Entries below
 * `offset` are archived: not held.
 */
class Level {
  private buf = Buffer.alloc(HASH * 1024);
  length: number;
  constructor(
    private readonly offset = 0,
    private readonly base = 0,
  ) {
    this.length = offset;
  }
  push(h: Uint8Array): void {
    if ((this.length - this.offset + 1) * HASH > this.buf.length) {
      const bigger = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(bigger);
      this.buf = bigger;
    }
    this.buf.set(h, (this.length - this.offset) * HASH);
    this.length += 1;
  }
  at(i: number): Buffer {
    if (i < this.offset) throw new ArchivedRangeError(this.base);
    return this.buf.subarray((i - this.offset) * HASH, (i - this.offset + 1) * HASH);
  }
}

/** The complete subtrees [start, start + 2^l) that make up the first n leaves, largest first. */
function frontierBlocks(n: number): Array<{ level: number; start: number }> {
  const blocks: Array<{ level: number; start: number }> = [];
  let start = 0;
  for (let l = Math.floor(Math.log2(Math.max(n, 1))); l >= 0; l -= 1) {
    if (Math.floor(n / 2 ** l) % 2 === 1) {
      blocks.push({ level: l, start });
      start += 2 ** l;
    }
  }
  return blocks;
}

export class MerkleLog {
  private readonly levels: Level[] = [new Level()];
  private archived = 0;

  /** A tree of `size` leaves of which only the frontier (frontier(size) of the full tree) is known. */
  static fromFrontier(size: number, frontier: Uint8Array[]): MerkleLog {
    const blocks = frontierBlocks(size);
    if (!Number.isSafeInteger(size) || size < 0 || frontier.length !== blocks.length || frontier.some((h) => h.length !== HASH)) {
      throw new Error(`the frontier of ${size} leaves is ${blocks.length} hashes of 32 bytes`);
    }
    const tree = new MerkleLog();
    tree.archived = size;
    const top = blocks.length ? blocks[0]!.level : 0;
    tree.levels.length = 0;
    for (let l = 0; l <= top; l += 1) {
      const count = Math.floor(size / 2 ** l);
      const i = blocks.findIndex((b) => b.level === l);
      const level = new Level(i >= 0 ? count - 1 : count, size);
      if (i >= 0) level.push(frontier[i]!);
      tree.levels.push(level);
    }
    return tree;
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  /** Leaves below this index are archived: their frontier is all the tree holds of them. */
  get base(): number {
    return this.archived;
  }

  /** The hashes of the complete subtrees that make up the first n leaves, largest first (what fromFrontier takes). */
  frontier(n = this.size): Buffer[] {
    this.checkSize(n);
    return frontierBlocks(n).map((b) => Buffer.from(this.levels[b.level]!.at(b.start / 2 ** b.level)));
  }

  /** Appends leaf hashes (32 bytes each), in index order. */
  append(leafHash: Uint8Array): void {
    if (leafHash.length !== HASH) throw new Error('a leaf hash has 32 bytes');
    this.levels[0]!.push(leafHash);
    // Complete every subtree this leaf closes.
    let index = this.size - 1;
    for (let l = 0; index % 2 === 1; l += 1) {
      const level = this.levels[l]!;
      const up = (this.levels[l + 1] ??= new Level(0, this.base));
      up.push(nodeHash(level.at(index - 1), level.at(index)));
      index = (index - 1) / 2;
    }
  }

  leaf(index: number): Buffer {
    return Buffer.from(this.levels[0]!.at(index));
  }

  /** MTH(D[start : start + n]). */
  private mth(start: number, n: number): Buffer {
    if (n === 0) return EMPTY_ROOT;
    // An aligned power-of-two range is a stored complete subtree.
    if ((n & (n - 1)) === 0 && start % n === 0) {
      const l = Math.log2(n);
      return Buffer.from(this.levels[l]!.at(start / n));
    }
    const k = split(n);
    return nodeHash(this.mth(start, k), this.mth(start + k, n - k));
  }

  /** The root of the tree of the first `size` leaves. */
  root(size = this.size): Buffer {
    this.checkSize(size);
    return this.mth(0, size);
  }

  /** RFC 9162 §2.1.3.1 PATH(m, D[0:n]): the inclusion proof of leaf m in the tree of size n. */
  inclusionProof(m: number, n: number): Buffer[] {
    this.checkSize(n);
    if (m < 0 || m >= n) throw new RangeError(`leaf ${m} is not in a tree of ${n} leaves`);
    const path = (mm: number, start: number, size: number): Buffer[] => {
      if (size === 1) return [];
      const k = split(size);
      return mm < k ? [...path(mm, start, k), this.mth(start + k, size - k)] : [...path(mm - k, start + k, size - k), this.mth(start, k)];
    };
    return path(m, 0, n);
  }

  /** RFC 9162 §2.1.4.1 PROOF(m, D[0:n]): the consistency proof from the tree of size m to the one of size n. */
  consistencyProof(m: number, n: number): Buffer[] {
    this.checkSize(n);
    if (m < 1 || m > n) throw new RangeError(`no consistency proof from ${m} to ${n} leaves`);
    const subproof = (mm: number, start: number, size: number, complete: boolean): Buffer[] => {
      if (mm === size) return complete ? [] : [this.mth(start, size)];
      const k = split(size);
      return mm <= k ? [...subproof(mm, start, k, complete), this.mth(start + k, size - k)] : [...subproof(mm - k, start + k, size - k, false), this.mth(start, k)];
    };
    return subproof(m, 0, n, true);
  }

  private checkSize(n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > this.size) throw new RangeError(`the log holds ${this.size} leaves, not ${n}`);
  }
}

/** RFC 9162 §2.1.3.2: does `proof` lead from the leaf hash at `index` to `root` in a tree of `size`? */
export function verifyInclusion(leafHash: Uint8Array, index: number, size: number, proof: Uint8Array[], root: Uint8Array): boolean {
  if (index >= size || index < 0) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leafHash);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) ((fn >>= 1), (sn >>= 1));
    } else r = nodeHash(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: is the tree (size2, root2) an append-only extension of (size1, root1)? */
export function verifyConsistency(size1: number, size2: number, proof: Uint8Array[], root1: Uint8Array, root2: Uint8Array): boolean {
  if (size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && Buffer.from(root1).equals(Buffer.from(root2));
  let path: Buffer[] = proof.map((p) => Buffer.from(p));
  if ((size1 & (size1 - 1)) === 0) path = [Buffer.from(root1), ...path];
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) ((fn >>= 1), (sn >>= 1));
  let fr: Buffer = path[0]!;
  let sr: Buffer = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) ((fn >>= 1), (sn >>= 1));
    } else sr = nodeHash(sr, c);
    fn >>= 1;
    sn >>= 1;
  }
  return fr.equals(Buffer.from(root1)) && sr.equals(Buffer.from(root2)) && sn === 0;
}
