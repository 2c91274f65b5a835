/**
 * The Merkle tree of a fragmented MP4's BMFF hash, as c2pa-rs's C2PAMerkleTree builds it and MerkleMap checks it:
 * every leaf's proof climbs to the kept row for trees of any size (the odd last node carried up unhashed), a proof's
 * length is known from the tree's shape alone, a changed leaf or proof fails, and the `merkle` box's CBOR reads back.
 * (That c2pa-rs itself accepts these trees is shown on signed renditions, bmff-rendition.test.ts.)
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { merkleBoxBytes, merkleMapOf } from '../../shared/c2pa/bmff-merkle-box.js';
import { merkleLayers, merkleLayout, merkleProof, merkleProofLength, merkleProofMatches, merkleRowIndex } from '../../shared/c2pa/bmff-merkle-tree.js';

const leafOf = (i: number) => createHash('sha256').update(`leaf ${i}`).digest();
const pair = (a: Buffer, b: Buffer) => createHash('sha256').update(Buffer.concat([a, b])).digest();

describe('c2pa: BMFF Merkle trees', function () {
  it('the layout and the tree: an odd last node goes up unchanged, parents hash their children concatenated', function () {
    expect(merkleLayout(5)).to.deep.equal([5, 3, 2, 1]);
    expect(merkleLayout(1)).to.deep.equal([1]);
    const leaves = [0, 1, 2, 3, 4].map(leafOf);
    const layers = merkleLayers(leaves, 'sha256');
    expect(layers.map((l) => l.length)).to.deep.equal([5, 3, 2, 1]);
    expect(layers[1]![2]!.equals(leaves[4]!)).to.equal(true);
    const left = pair(pair(leaves[0]!, leaves[1]!), pair(leaves[2]!, leaves[3]!));
    expect(layers[3]![0]!.equals(pair(left, leaves[4]!))).to.equal(true);
  });

  it('every leaf of trees of 1 to 70 leaves proves to the kept row; its proof length is known before hashing', function () {
    for (let count = 1; count <= 70; count += 1) {
      const layers = merkleLayers(Array.from({ length: count }, (_, i) => leafOf(i)), 'sha256');
      const row = layers[merkleRowIndex(count)]!;
      expect(row.length).to.equal(count > 32 ? merkleLayout(count)[5] : 1);
      for (let i = 0; i < count; i += 1) {
        const proof = merkleProof(layers, i);
        expect(proof.length, `${count}/${i}`).to.equal(merkleProofLength(count, i));
        expect(merkleProofMatches('sha256', { count, row }, leafOf(i), i, proof.length ? proof : null), `${count}/${i}`).to.equal(true);
        expect(merkleProofMatches('sha256', { count, row }, leafOf(i + 1000), i, proof.length ? proof : null)).to.equal(false);
        if (proof.length) {
          const bent = proof.map((h, k) => (k === proof.length - 1 ? leafOf(-1) : h));
          expect(merkleProofMatches('sha256', { count, row }, leafOf(i), i, bent)).to.equal(false);
          expect(merkleProofMatches('sha256', { count, row }, leafOf(i), i, proof.slice(0, -1))).to.equal(false);
        }
      }
      expect(merkleProofMatches('sha256', { count, row }, leafOf(0), count, null)).to.equal(false);
    }
  });

  it('a merkle box: its CBOR reads back, and its size depends only on the proof length and the location', function () {
    const proof = [leafOf(1), leafOf(2)];
    const box = merkleBoxBytes({ uniqueId: 1, localId: 1, location: 3, hashes: proof });
    expect(box.readUInt32BE(0)).to.equal(box.length);
    expect(box.toString('latin1', 4, 8)).to.equal('uuid');
    expect(box.toString('latin1', 28, 35)).to.equal('merkle\0');
    expect(merkleMapOf(box.subarray(35))).to.deep.equal({ uniqueId: 1, localId: 1, location: 3, hashes: proof.map((h) => new Uint8Array(h)) });
    expect(merkleBoxBytes({ uniqueId: 1, localId: 1, location: 3, hashes: [Buffer.alloc(32), Buffer.alloc(32)] }).length).to.equal(box.length);
    expect(merkleMapOf(merkleBoxBytes({ uniqueId: 1, localId: 1, location: 0, hashes: null }).subarray(35))).to.deep.equal({ uniqueId: 1, localId: 1, location: 0, hashes: null });
    expect(merkleMapOf(Buffer.from('not cbor at all'))).to.equal(undefined);
  });
});
