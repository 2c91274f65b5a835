/**
 * The audit log's tree against RFC 9162: roots equal a naive MTH, every inclusion and consistency proof of small trees
 * checks with the RFC's verification algorithms, and altered proofs, indexes and roots do not.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { MerkleLog, verifyConsistency, verifyInclusion } from '../../shared/audit-log/tree.js';

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
});
