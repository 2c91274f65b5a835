import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { issueLeafCertificate, issueSubCa } from '../../shared/pki/certificate-templates.js';
import { parseCertificate, readCertificate } from '../../shared/pki/certificate.js';
import { createCrl, verifyCrlSignature } from '../../shared/pki/crl.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { CRL_URL, DAY, OCSP_URL, openssl } from './helpers.js';

/**
 * Interop with a chain made by the openssl CLI (test/support/openssl-chain.ts): certificates and CRLs our code
 * issues under openssl's CAs verify with openssl, and our parser agrees with openssl about openssl's certificates.
 */
describe('pki interop with an openssl-made chain', () => {
  let ref: OpensslChain;
  const file = (name: string) => path.join(ref.dir, name);
  const write = (name: string, data: string | Uint8Array) => {
    writeFileSync(file(name), data);
    return file(name);
  };

  before(async () => {
    ref = await makeOpensslChain({ days: 30, cn: 'Interop' });
  });
  after(() => rmSync(ref.dir, { recursive: true, force: true }));

  it("a leaf issued by our code under openssl's sub-CA verifies (also for smimesign)", async () => {
    const key = await ref.vault.ensureKey('our-leaf');
    const leaf = await issueLeafCertificate({
      subject: { commonName: 'Our Leaf', organization: 'Interop Org' },
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 20 * DAY),
      subjectPublicKeySpki: key.publicKeySpki,
      issuer: { certificateDer: ref.der.subCa, key: ref.keys.subCa },
      crlUrl: CRL_URL,
      ocspUrl: OCSP_URL,
    });
    const leafFile = write('our-leaf.pem', leaf.pem);
    const r = await openssl(['verify', '-purpose', 'smimesign', '-CAfile', ref.files.root, '-untrusted', ref.files.subCa, leafFile]);
    expect(r.code, r.output).to.equal(0);
    expect(r.stdout.trim()).to.equal(`${leafFile}: OK`);
    // Issuer name copied byte-for-byte from openssl's certificate; AKI = openssl's SKI.
    const subCa = readCertificate(ref.der.subCa);
    expect(Buffer.from(readCertificate(leaf.der).issuerNameDer).equals(Buffer.from(subCa.subjectNameDer))).to.equal(true);
    expect(leaf.facts.authorityKeyIdHex).to.equal(subCa.facts.subjectKeyIdHex);
  });

  it("a sub-CA issued by our code under openssl's root verifies, and so does a leaf under it", async () => {
    const subKey = await ref.vault.ensureKey('our-sub-ca');
    const leafKey = await ref.vault.ensureKey('our-leaf-2');
    const sub = await issueSubCa({
      subject: { commonName: 'Our Sub CA' },
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 20 * DAY),
      subjectPublicKeySpki: subKey.publicKeySpki,
      issuer: { certificateDer: ref.der.root, key: ref.keys.root },
      crlUrl: CRL_URL,
    });
    const leaf = await issueLeafCertificate({
      subject: { commonName: 'Our Leaf 2' },
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 10 * DAY),
      subjectPublicKeySpki: leafKey.publicKeySpki,
      issuer: { certificateDer: sub.der, key: subKey },
      crlUrl: CRL_URL,
      ocspUrl: OCSP_URL,
    });
    const r = await openssl(['verify', '-CAfile', ref.files.root, '-untrusted', write('our-sub.pem', sub.pem), write('our-leaf-2.pem', leaf.pem)]);
    expect(r.code, r.output).to.equal(0);
  });

  it("CRLs signed by our code with openssl's CA keys verify and revoke openssl's own leaf", async () => {
    const opensslLeaf = parseCertificate(ref.der.leaf);
    const leafCrl = await createCrl({
      issuerCertificateDer: ref.der.subCa,
      issuerKey: ref.keys.subCa,
      crlNumber: 1,
      revoked: [{ serialHex: opensslLeaf.serialHex, revokedAt: new Date(Date.now() - 1000), reason: 'keyCompromise' }],
    });
    const rootCrl = await createCrl({ issuerCertificateDer: ref.der.root, issuerKey: ref.keys.root, crlNumber: 1, revoked: [] });
    const leafCrlFile = write('ours-leaf.crl', leafCrl.der);
    const rootCrlFile = write('ours-sub-ca.crl', rootCrl.der);

    const v = await openssl(['crl', '-in', leafCrlFile, '-inform', 'DER', '-CAfile', ref.files.subCa, '-noout', '-verify']);
    expect(v.output).to.contain('verify OK');
    expect(verifyCrlSignature(leafCrl.der, ref.der.subCa)).to.equal(true);

    const chainArgs = ['verify', '-crl_check_all', '-CAfile', ref.files.root, '-untrusted', ref.files.subCa, '-CRLfile', leafCrlFile, '-CRLfile', rootCrlFile];
    const revoked = await openssl([...chainArgs, ref.files.leaf]);
    expect(revoked.code).to.not.equal(0);
    expect(revoked.output).to.contain('certificate revoked');
    const good = await openssl([...chainArgs, ref.files.tsa]);
    expect(good.code, good.output).to.equal(0);
  });

  it("our parser agrees with openssl about openssl's certificates (serial, names, dates, fingerprint)", async () => {
    for (const [name, f] of Object.entries(ref.files)) {
      const facts = parseCertificate(ref.der[name as keyof OpensslChain['der']]);
      const r = await openssl(['x509', '-in', f, '-noout', '-serial', '-subject', '-issuer', '-startdate', '-enddate', '-fingerprint', '-sha256', '-nameopt', 'RFC2253']);
      const field = (k: string) => r.stdout.split('\n').find((l) => l.startsWith(`${k}=`))!.slice(k.length + 1);
      // openssl prints the serial's magnitude in hex; compare values, and that ours is canonical (even length).
      expect(BigInt(`0x${field('serial')}`)).to.equal(BigInt(`0x${facts.serialHex}`));
      expect(facts.serialHex).to.match(/^([0-9a-f]{2})+$/);
      expect(field('subject')).to.equal(facts.subject);
      expect(field('issuer')).to.equal(facts.issuer);
      expect(new Date(field('notBefore')).getTime()).to.equal(facts.notBefore.getTime());
      expect(new Date(field('notAfter')).getTime()).to.equal(facts.notAfter.getTime());
      expect(field('sha256 Fingerprint').replace(/:/g, '').toLowerCase()).to.equal(facts.fingerprintSha256);
    }
  });
});
