import { expect } from 'chai';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { DerError, readChildren, readSingle, tlvBytes } from '../../shared/pki/der.js';
import { ecdsaDerToRaw } from '../../shared/pki/ecdsa-signature.js';
import {
  ECDSA_WITH_SHA384_ALGORITHM_DER,
  ECDSA_WITH_SHA384_OID,
  PkiKeyError,
  SignatureCheckError,
  assembleSigned,
  signAndAssemble,
  signTbs,
} from '../../shared/pki/tbs-signer.js';
import { LocalKeyVault } from '../../shared/vault/local.js';
import type { VaultKey } from '../../shared/vault/types.js';
import { expectReject, tempDir } from './helpers.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('pki/tbs-signer: signTbs / assembleSigned', () => {
  const tmp = tempDir();
  let key: VaultKey;
  let other: VaultKey;
  // A DER SEQUENCE standing in for a TBS structure: SEQUENCE { INTEGER 5, UTF8String "hello!" }.
  const tbsDer = new Uint8Array(Buffer.from('300b0201050c0668656c6c6f21', 'hex'));

  before(async () => {
    const vault = new LocalKeyVault(tmp.dir);
    key = await vault.ensureKey('signer');
    other = await vault.ensureKey('other');
  });
  after(() => tmp.cleanup());

  it('the algorithm identifier is ecdsa-with-SHA384 with parameters absent', () => {
    expect(hex(ECDSA_WITH_SHA384_ALGORITHM_DER)).to.equal('300a06082a8648ce3d040303');
    expect(hex(new Uint8Array(AsnConvert.serialize(new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA384_OID })))))
      .to.equal(hex(ECDSA_WITH_SHA384_ALGORITHM_DER));
  });

  it('signs through the vault and returns a DER ECDSA-Sig-Value that node:crypto verifies', async () => {
    const sig = await signTbs(key, tbsDer);
    expect(sig.signatureAlgorithm.algorithm).to.equal(ECDSA_WITH_SHA384_OID);
    expect(sig.signatureAlgorithm.parameters).to.equal(undefined);
    expect(hex(sig.signatureAlgorithmDer)).to.equal(hex(ECDSA_WITH_SHA384_ALGORITHM_DER));
    expect(ecdsaDerToRaw(sig.signatureValue)).to.have.length(96);
    const pub = createPublicKey({ key: Buffer.from(key.publicKeySpki), format: 'der', type: 'spki' });
    expect(verify('sha384', tbsDer, { key: pub, dsaEncoding: 'der' }, sig.signatureValue)).to.equal(true);
  });

  it('assembles SEQUENCE { tbs, algorithm, BIT STRING } around the exact TBS bytes, with trailing elements', async () => {
    const sig = await signTbs(key, tbsDer);
    const trailing = Uint8Array.from(Buffer.from('a0020500', 'hex'));
    const der = assembleSigned(tbsDer, sig, trailing);
    const outer = readSingle(der, 0x30);
    const [t, a, b, x, ...rest] = readChildren(der, outer);
    expect(rest).to.have.length(0);
    expect(hex(tlvBytes(der, t!))).to.equal(hex(tbsDer));
    expect(hex(tlvBytes(der, a!))).to.equal(hex(ECDSA_WITH_SHA384_ALGORITHM_DER));
    expect(b!.tag).to.equal(0x03);
    expect(der[b!.contentStart]).to.equal(0); // no unused bits
    expect(hex(der.subarray(b!.contentStart + 1, b!.end))).to.equal(hex(sig.signatureValue));
    expect(hex(tlvBytes(der, x!))).to.equal('a0020500');
    expect(await signAndAssemble(key, tbsDer)).to.be.instanceOf(Uint8Array);
  });

  it('refuses a TBS that is not exactly one DER SEQUENCE', async () => {
    await expectReject(signTbs(key, Uint8Array.of(0x02, 0x01, 0x05)), DerError);
    await expectReject(signTbs(key, new Uint8Array([...tbsDer, 0])), DerError);
  });

  it('refuses keys that are not P-384', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const p256: VaultKey = {
      name: 'p256',
      publicKeySpki: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })),
      signEs384: async () => new Uint8Array(96),
    };
    await expectReject(signTbs(p256, tbsDer), PkiKeyError);
  });

  it('catches a vault that signs with a different key than it claims', async () => {
    const liar: VaultKey = { name: 'liar', publicKeySpki: key.publicKeySpki, signEs384: (d) => other.signEs384(d) };
    await expectReject(signTbs(liar, tbsDer), SignatureCheckError);
  });
});
