/**
 * The certificate chain of a COSE_Sign1, where c2pa-rs looks for it: the protected header's x5chain (label 33), else
 * the unprotected header's (C2PA 1.x claims), under label 33 or the text label "x5chain", one certificate or several.
 */
import { expect } from 'chai';
import { encode } from 'cbor-x';
import { coseHeadersOf } from '../../shared/c2pa/signature-cose.js';

const leaf = new Uint8Array([1, 2, 3]);
const ca = new Uint8Array([4, 5, 6]);
const sign1 = (protectedHeader: Map<number | string, unknown> | undefined, unprotected: Map<number | string, unknown>) =>
  encode([protectedHeader ? encode(protectedHeader) : new Uint8Array(0), unprotected, null, new Uint8Array(64)]);
const chainOf = (bytes: Uint8Array) => coseHeadersOf(bytes)!.x5chain.map((c) => [...c]);

describe('c2pa: the certificate chain of a COSE_Sign1', function () {
  it('reads the protected header first', function () {
    const both = sign1(new Map<number, unknown>([[1, -35], [33, [leaf, ca]]]), new Map([[33, [ca]]]));
    expect(chainOf(both)).to.deep.equal([[...leaf], [...ca]]);
  });

  it('reads the unprotected header when the protected one has none, under label 33 or "x5chain", one certificate or several', function () {
    expect(chainOf(sign1(new Map([[1, -7]]), new Map([[33, [leaf, ca]]])))).to.deep.equal([[...leaf], [...ca]]);
    expect(chainOf(sign1(undefined, new Map<string, unknown>([['x5chain', leaf]])))).to.deep.equal([[...leaf]]);
  });

  it('is empty without a chain in either header', function () {
    expect(chainOf(sign1(new Map([[1, -7]]), new Map([['sigTst', {}]])))).to.deep.equal([]);
  });
});
