/** The Merkle tree and anchor encoding: RFC 9162 shape, domain separation, proof sizes, tampering. */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { anchorCalldata, rootFromCalldata } from '../../shared/chain/anchor-calldata.js';
import { buildMerkleTree, leafHash, maxProofLength, nodeHash, rootFromProof } from '../../shared/chain/merkle.js';
import { intrinsicGas } from '../../shared/chain/anchor-account.js';

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const files = (n: number) => Array.from({ length: n }, (_, i) => sha(Buffer.from(`file ${i}`)).toString('hex'));

/** RFC 9162 section 2.1.1 MTH, written from the RFC: split at the largest power of two below n. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return sha(Buffer.of(0), leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

describe('chain: Merkle tree and anchor encoding', () => {
  it('hashes leaves as sha256(0x00 || file hash) and nodes as sha256(0x01 || left || right)', () => {
    const [a, b] = files(2).map((h) => Buffer.from(h, 'hex'));
    expect(leafHash(a!).equals(sha(Buffer.of(0), a!))).to.equal(true);
    expect(nodeHash(a!, b!).equals(sha(Buffer.of(1), a!, b!))).to.equal(true);
    const tree = buildMerkleTree([a!, b!]);
    expect(tree.root.equals(sha(Buffer.of(1), leafHash(a!), leafHash(b!)))).to.equal(true);
    expect(tree.proofs[0]).to.deep.equal([{ side: 'right', hash: leafHash(b!).toString('hex') }]);
    expect(tree.proofs[1]).to.deep.equal([{ side: 'left', hash: leafHash(a!).toString('hex') }]);
  });

  it('a single file: the root is its leaf hash and the proof is empty', () => {
    const [h] = files(1);
    const tree = buildMerkleTree([h!]);
    expect(tree.root.equals(leafHash(h!))).to.equal(true);
    expect(tree.proofs).to.deep.equal([[]]);
  });

  it('equals RFC 9162 MTH for every size up to 70, and every proof leads to the root in at most ceil(log2 n) steps', () => {
    for (let n = 1; n <= 70; n += 1) {
      const hashes = files(n);
      const tree = buildMerkleTree(hashes);
      expect(tree.root.equals(mth(hashes.map((h) => Buffer.from(h, 'hex')))), `n=${n}`).to.equal(true);
      hashes.forEach((h, i) => {
        expect(tree.proofs[i]!.length).to.be.at.most(maxProofLength(n));
        expect(rootFromProof(h, tree.proofs[i]!).equals(tree.root), `n=${n} leaf ${i}`).to.equal(true);
      });
    }
  });

  it('1000 files: proofs of at most 10 siblings (ceil(log2 1000))', () => {
    const hashes = Array.from({ length: 1000 }, () => randomBytes(32));
    const tree = buildMerkleTree(hashes);
    expect(maxProofLength(1000)).to.equal(10);
    expect(Math.max(...tree.proofs.map((p) => p.length))).to.equal(10);
    expect(rootFromProof(hashes[777]!, tree.proofs[777]!).equals(tree.root)).to.equal(true);
  });

  it('another file, a changed sibling, a swapped side or an inner node as a leaf do not lead to the root', () => {
    const hashes = files(9);
    const tree = buildMerkleTree(hashes);
    const proof = tree.proofs[4]!;
    expect(rootFromProof(files(10)[9]!, proof).equals(tree.root)).to.equal(false);
    const changed = proof.map((s, i) => (i === 1 ? { ...s, hash: 'ff' + s.hash.slice(2) } : s));
    expect(rootFromProof(hashes[4]!, changed).equals(tree.root)).to.equal(false);
    const swapped = proof.map((s, i) => (i === 0 ? { ...s, side: s.side === 'left' ? ('right' as const) : ('left' as const) } : s));
    expect(rootFromProof(hashes[4]!, swapped).equals(tree.root)).to.equal(false);
    // Presenting the node over leaves 0 and 1 as if it were a file hash: its leaf hash differs (0x00 prefix).
    const inner = nodeHash(leafHash(hashes[0]!), leafHash(hashes[1]!));
    expect(rootFromProof(inner, tree.proofs[0]!.slice(1)).equals(tree.root)).to.equal(false);
  });

  it('refuses malformed hashes', () => {
    expect(() => buildMerkleTree([])).to.throw(/at least one/);
    expect(() => leafHash('abc')).to.throw(/64 hex/);
    expect(() => leafHash(new Uint8Array(31))).to.throw(/32 bytes/);
  });

  it('anchor calldata: "mssa" v1 prefix and the root, 37 bytes, 22480 gas with the EIP-7623 floor', () => {
    const root = files(1)[0]!;
    const data = anchorCalldata(root);
    expect(data).to.equal(`0x6d73736101${root}`);
    expect(rootFromCalldata(data)).to.equal(root);
    expect(rootFromCalldata(data.toUpperCase().replace('0X', '0x'))).to.equal(root);
    expect(rootFromCalldata('0x')).to.equal(null);
    expect(rootFromCalldata(`0x6d73736102${root}`)).to.equal(null);
    expect(rootFromCalldata(`${data}00`)).to.equal(null);
    expect(intrinsicGas(data)).to.equal(22480n);
  });
});
