import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { expect } from 'chai';
import { signP384Digest, verifyP384Digest } from '../support/azure-keyvault-standin.js';

// The stand-in signs and verifies digests with its own arithmetic (node:crypto always hashes). Check it against
// node:crypto in both directions so that the Azure tests rest on something independent.
describe('Azure Key Vault stand-in: P-384 ECDSA over a digest', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const jwk = privateKey.export({ format: 'jwk' });
  const big = (b64: string) => BigInt(`0x${Buffer.from(b64, 'base64url').toString('hex')}`);
  const [d, x, y] = [big(jwk.d!), big(jwk.x!), big(jwk.y!)];

  it('makes signatures node:crypto verifies', () => {
    for (let i = 0; i < 5; i++) {
      const data = Buffer.from(`message ${i}`);
      const signature = signP384Digest(d, createHash('sha384').update(data).digest());
      expect(signature.length).to.equal(96);
      expect(verify('sha384', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).to.equal(true);
    }
  });

  it('verifies node:crypto signatures and rejects altered ones', () => {
    const data = Buffer.from('made by node');
    const digest = createHash('sha384').update(data).digest();
    const signature = sign('sha384', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    expect(verifyP384Digest(x, y, digest, signature)).to.equal(true);
    const altered = Buffer.from(signature);
    altered[10] ^= 0x40;
    expect(verifyP384Digest(x, y, digest, altered)).to.equal(false);
    expect(verifyP384Digest(x, y, createHash('sha384').update('other').digest(), signature)).to.equal(false);
    expect(verifyP384Digest(x, y, digest, signature.subarray(0, 95))).to.equal(false);
  });
});
