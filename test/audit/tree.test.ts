/**
 * The audit log's tree against RFC 9162: roots equal a naive MTH, every inclusion and consistency proof of small trees
 * checks with the RFC's verification algorithms, and altered proofs, indexes and roots do not. A tree started from an
 * archived prefix's frontier answers the same roots and proofs at every size from the prefix on, and refuses (never
 * guesses) what needs a hash inside the prefix.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ArchivedRangeError, MerkleLog, verifyConsistency, verifyInclusion } from '../../shared/audit-log/tree.js';

const sha = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const leaf = (i: number) => sha(Buffer.of(0), Buffer.from(`event ${i}`));

function naiveMth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.of(1), naiveMth(leaves.slice(0, k)), naiveMth(leaves.slice(k)));
}

describe('audit log tree (RFC 9162 §2.1)', () => {
  const N = 40;
  const leaves = Array.from({ length: N }, (_, i) => leaf(i));
  const log = new MerkleLog();
  for (const l of leaves) log.append(l);

  it('has the root of RFC 9162 MTH for every size', () => {
    for (let n = 0; n <= N; n += 1) expect(log.root(n).toString('hex'), `size ${n}`).to.equal(naiveMth(leaves.slice(0, n)).toString('hex'));
  });

  it('gives inclusion proofs that check, and fail for another leaf, index or root', () => {
    for (let n = 1; n <= N; n += 1) {
      const root = log.root(n);
      for (let m = 0; m < n; m += 1) {
        const proof = log.inclusionProof(m, n);
        expect(verifyInclusion(leaves[m]!, m, n, proof, root), `${m} in ${n}`).to.equal(true);
        if (n > 1) {
          expect(verifyInclusion(leaves[(m + 1) % n]!, m, n, proof, root)).to.equal(false);
          expect(verifyInclusion(leaves[m]!, (m + 1) % n, n, proof, root)).to.equal(false);
        }
        expect(verifyInclusion(leaves[m]!, m, n, proof, log.root(N === n ? n - 1 : n + 1))).to.equal(false);
      }
    }
  });

  it('gives consistency proofs that check between every two sizes, and fail against another root', () => {
    for (let n = 1; n <= N; n += 1) {
      for (let m = 1; m <= n; m += 1) {
        const proof = log.consistencyProof(m, n);
        expect(verifyConsistency(m, n, proof, log.root(m), log.root(n)), `${m} -> ${n}`).to.equal(true);
        const forged = sha(Buffer.from('forged'));
        expect(verifyConsistency(m, n, proof, forged, log.root(n)), `${m} -> ${n}, forged old root`).to.equal(false);
        expect(verifyConsistency(m, n, proof, log.root(m), forged), `${m} -> ${n}, forged new root`).to.equal(false);
      }
    }
  });

  it('refuses proofs beyond the leaves it holds', () => {
    expect(() => log.inclusionProof(N, N)).to.throw(RangeError);
    expect(() => log.consistencyProof(1, N + 1)).to.throw(RangeError);
    expect(() => log.consistencyProof(0, N)).to.throw(RangeError);
  });

  it('started from the frontier of an archived prefix, gives the full tree\'s roots and proofs from that size on', () => {
    for (let base = 0; base <= N; base += 1) {
      const cut = MerkleLog.fromFrontier(base, log.frontier(base));
      expect(cut.size).to.equal(base);
      expect(cut.frontier().map((h) => h.toString('hex'))).to.deep.equal(log.frontier(base).map((h) => h.toString('hex')));
      for (const l of leaves.slice(base)) cut.append(l);
      for (let n = Math.max(base, 1); n <= N; n += 1) {
        expect(cut.root(n).equals(log.root(n)), `base ${base}, size ${n}`).to.equal(true);
        for (let m = base; m < n; m += 1) expect(cut.inclusionProof(m, n), `leaf ${m} of ${n}, base ${base}`).to.deep.equal(log.inclusionProof(m, n));
        for (let m = Math.max(base, 1); m <= n; m += 1) expect(cut.consistencyProof(m, n), `${m} to ${n}, base ${base}`).to.deep.equal(log.consistencyProof(m, n));
      }
      expect(cut.frontier(N)).to.deep.equal(log.frontier(N));
    }
  });

  it('refuses what needs a hash inside the archived prefix', () => {
    const cut = MerkleLog.fromFrontier(21, log.frontier(21));
    for (const l of leaves.slice(21)) cut.append(l);
    expect(() => cut.inclusionProof(3, N)).to.throw(ArchivedRangeError);
    expect(() => cut.consistencyProof(5, N)).to.throw(ArchivedRangeError);
    expect(() => cut.root(7)).to.throw(ArchivedRangeError);
    // 16 leaves are one complete subtree of the frontier of 21: that root is kept.
    expect(cut.root(16).equals(log.root(16))).to.equal(true);
    expect(() => MerkleLog.fromFrontier(21, log.frontier(20))).to.throw(/frontier of 21 leaves is 3 hashes/);
  });
});
