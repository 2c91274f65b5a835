import { open } from 'node:fs/promises';
import { BmffUnsignableError, withBmffBoxes } from './bmff-c2pa-boxes.js';
import { bmffDigest, exclusionsOf, type BmffExclusion, type BmffHashAssertion, type BmffHashOptions } from './bmff-hash.js';
import { merkleMapOf } from './bmff-merkle-box.js';
import { merkleProofMatches } from './bmff-merkle-tree.js';
import { BmffFileReader, BmffMalformed, BmffTooManyBoxes } from './bmff-walk.js';
import { BindingLimitExceeded } from './binding-limits.js';
import { bytesOf, isCount } from './crjson-values.js';
import { hashAlgorithm } from './data-hash.js';

/**
 * The check c2pa-rs makes of one media segment of a fragmented MP4 against the c2pa.hash.bmff assertion of its init
 * segment's manifest (BmffHash::verify_stream_segment, which c2pa-wasm's fromBlobFragment runs), ported to run in
 * bounded memory on files of any size: the assertion has Merkle trees and no file-level hash; the init segment hashes
 * (the assertion's exclusions left out, top-level offsets hashed from v2 on) to the tree's initHash; each `merkle` box
 * of the segment names a tree (uniqueId, localId) and a leaf (location), and the segment's own hash (the same
 * exclusions, so its `merkle` box is left out) climbs with the box's proof to that tree's kept row.
 *
 * One departure: c2pa-rs 0.91 skips a segment whose tree has no initHash without checking it (a match); here that is a
 * mismatch, since nothing would bind the segment to anything.
 */

/** A file c2pa-rs cannot walk, or one past the walk's bound on boxes, or an assertion past the check's bounds. */
const isUnwalkable = (err: unknown) => err instanceof BmffMalformed || err instanceof BmffTooManyBoxes || err instanceof BindingLimitExceeded;

/** One Merkle tree of the assertion (MerkleMap), its bytes decoded. */
interface MerkleTree {
  uniqueId: number;
  localId: number;
  count: number;
  alg: string;
  initHash: Buffer | undefined;
  row: Buffer[];
}

/** The assertion's trees, or undefined when one is not of the shape c2pa-rs deserializes (or of an algorithm it does not know). */
function treesOf(merkle: unknown[], defaultAlg: string): MerkleTree[] | undefined {
  const trees: MerkleTree[] = [];
  for (const entry of merkle) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const m = entry as Record<string, unknown>;
    const alg = typeof m.alg === 'string' ? hashAlgorithm(m.alg) : defaultAlg;
    const row = Array.isArray(m.hashes) ? m.hashes.map(bytesOf) : undefined;
    const initHash = m.initHash === undefined || m.initHash === null ? undefined : bytesOf(m.initHash);
    if (!alg || !isCount(m.uniqueId) || !isCount(m.localId) || !isCount(m.count) || !row || row.some((h) => !h)) return undefined;
    if (m.initHash != null && !initHash) return undefined;
    trees.push({ uniqueId: m.uniqueId, localId: m.localId, count: m.count, alg, initHash, row: row as Buffer[] });
  }
  return trees;
}

async function withFile<T>(filePath: string, use: (file: BmffFileReader) => Promise<T>): Promise<T> {
  const handle = await open(filePath, 'r');
  try {
    return await use(new BmffFileReader(handle, (await handle.stat()).size));
  } finally {
    await handle.close();
  }
}

/** Whether a segment's `merkle` boxes each prove it a leaf of the tree they name. */
async function segmentMatches(filePath: string, trees: readonly MerkleTree[], exclusions: readonly BmffExclusion[], hashOffsets: boolean): Promise<boolean> {
  return withBmffBoxes(filePath, async (file, top) => {
    const boxes = top.c2paBoxes.filter((b) => b.purpose === 'merkle');
    if (!boxes.length) return false;
    for (const box of boxes) {
      const map = merkleMapOf(await file.exact(box.storeOffset, box.offset + box.size - box.storeOffset));
      const tree = map && trees.find((t) => t.uniqueId === map.uniqueId && t.localId === map.localId);
      if (!map || !tree) return false;
      const leaf = await bmffDigest(file, exclusions, { alg: tree.alg, hashOffsets });
      if (!leaf || !merkleProofMatches(tree.alg, { count: tree.count, row: tree.row }, leaf, map.location, map.hashes)) return false;
    }
    return true;
  });
}

/**
 * The check of segments against the init segment at `initPath` and its manifest's BMFF hash assertion: a function of a
 * segment's path giving its verdict (true: it is one of the rendition's segments, unchanged). Undefined when this check
 * cannot judge the assertion (exclusions or an algorithm c2pa-rs would not read). The init segment is hashed once.
 */
export async function segmentCheck(initPath: string, assertion: BmffHashAssertion, options: BmffHashOptions): Promise<((segmentPath: string) => Promise<boolean>) | undefined> {
  const alg = hashAlgorithm(assertion.alg ?? options.claimAlg ?? 'sha256');
  let exclusions: BmffExclusion[] | undefined;
  try {
    exclusions = exclusionsOf(assertion);
  } catch (err) {
    // More exclusions than the check's bound: nothing is hashed, nothing matches.
    if (err instanceof BindingLimitExceeded) return async () => false;
    throw err;
  }
  if (!alg || !exclusions) return undefined;
  const trees = Array.isArray(assertion.merkle) ? treesOf(assertion.merkle, alg) : undefined;
  const hashOffsets = options.version > 1;
  // A file-level hash, no trees, or trees of no shape c2pa-rs reads: no segment matches (verify_stream_segment's errors).
  if (assertion.hash !== undefined || !trees?.length) return async () => false;
  let initMatches: boolean;
  try {
    initMatches = await withFile(initPath, async (file) => {
      for (const tree of trees) {
        const digest = tree.initHash && (await bmffDigest(file, exclusions, { alg: tree.alg, hashOffsets }));
        if (!digest || !tree.initHash!.equals(digest)) return false;
      }
      return true;
    });
  } catch (err) {
    if (!isUnwalkable(err)) throw err;
    initMatches = false;
  }
  return async (segmentPath) => {
    if (!initMatches) return false;
    try {
      return await segmentMatches(segmentPath, trees, exclusions, hashOffsets);
    } catch (err) {
      // What c2pa-rs cannot walk or read the C2PA boxes of, it does not match.
      if (isUnwalkable(err) || err instanceof BmffUnsignableError) return false;
      throw err;
    }
  };
}
