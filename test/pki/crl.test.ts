import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { issueLeafCertificate, issueSubCa, type IssuedCertificate } from '../../shared/pki/certificate-templates.js';
import {
  CRL_NEXT_UPDATE_MS,
  CrlError,
  buildTbsCertList,
  createCrl,
  parseCrl,
  verifyCrlSignature,
  type RevokedEntry,
} from '../../shared/pki/crl.js';
import { derToPem } from '../../shared/pki/pem.js';
import { signAndAssemble } from '../../shared/pki/tbs-signer.js';
import { CRL_URL, DAY, OCSP_URL, expectReject, issueTestChain, openssl, tempDir, type TestChain } from './helpers.js';

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

const readDer = (file: string) => new Uint8Array(readFileSync(file));

/** The entry block of one serial in `openssl crl -text` output. */
function entryBlock(text: string, serialHex: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim() === `Serial Number: ${serialHex.toUpperCase()}`);
  if (i < 0) return '';
  const out = [lines[i]!.trim()];
  for (const l of lines.slice(i + 1)) {
    if (/^\s*(Serial Number:|Signature Algorithm:)/.test(l)) break;
    out.push(l.trim());
  }
  return out.join('\n');
}

describe('pki/crl: CRLs signed through VaultKeys, checked by openssl', () => {
  const tmp = tempDir();
  let chain: TestChain;
  let revokedLeaf: IssuedCertificate;
  let entries: RevokedEntry[];
  const thisUpdate = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);

  before(async () => {
    chain = await issueTestChain(tmp.dir);
    revokedLeaf = await issueLeafCertificate({
      subject: { commonName: 'Revoked Leaf', organization: 'PKI Test Org' },
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 30 * DAY),
      subjectPublicKeySpki: chain.keys.leaf.publicKeySpki,
      issuer: { certificateDer: chain.subCa.der, key: chain.keys.subCa },
      crlUrl: CRL_URL,
      ocspUrl: OCSP_URL,
    });
    chain.write('revoked.pem', revokedLeaf.pem);
    entries = [
      { serialHex: revokedLeaf.facts.serialHex, revokedAt: new Date(thisUpdate.getTime() - 3600_000), reason: 'keyCompromise' },
      { serialHex: 'FF01', revokedAt: new Date(thisUpdate.getTime() - 7200_000), reason: 'superseded' }, // high bit: needs a sign octet
      { serialHex: '0a0b0c', revokedAt: new Date(thisUpdate.getTime() - 7200_000), reason: 'unspecified' },
      { serialHex: '1234', revokedAt: new Date(thisUpdate.getTime() - 7200_000), reason: 'aACompromise' },
    ];
    const leafCrl = await createCrl({ issuerCertificateDer: chain.subCa.der, issuerKey: chain.keys.subCa, crlNumber: 42, thisUpdate, revoked: entries });
    chain.write('leaf.crl', leafCrl.der);
    const subCaCrl = await createCrl({ issuerCertificateDer: chain.root.der, issuerKey: chain.keys.root, crlNumber: 7n, thisUpdate, revoked: [] });
    chain.write('sub-ca.crl', subCaCrl.der);
  });
  after(() => tmp.cleanup());

  describe('openssl crl -verify (prints "verify OK"; its exit code is 0 either way, so the text is checked)', () => {
    it('leaf.crl verifies with the sub-CA certificate, sub-ca.crl with the root', async () => {
      const leaf = await openssl(['crl', '-in', 'leaf.crl', '-inform', 'DER', '-CAfile', 'sub-ca.pem', '-noout', '-verify'], tmp.dir);
      expect(leaf.output).to.contain('verify OK');
      const sub = await openssl(['crl', '-in', 'sub-ca.crl', '-inform', 'DER', '-CAfile', 'root.pem', '-noout', '-verify'], tmp.dir);
      expect(sub.output).to.contain('verify OK');
      expect(verifyCrlSignature(readDer(chain.file('leaf.crl')), chain.subCa.der)).to.equal(true);
    });

    it('a CRL with the right issuer name but signed by the wrong key does NOT verify', async () => {
      const { tbsDer } = buildTbsCertList({ issuerCertificateDer: chain.subCa.der, crlNumber: 43, thisUpdate, revoked: [] });
      const forged = await signAndAssemble(chain.keys.root, tbsDer); // root key, sub-CA name
      chain.write('forged.crl', forged);
      const r = await openssl(['crl', '-in', 'forged.crl', '-inform', 'DER', '-CAfile', 'sub-ca.pem', '-noout', '-verify'], tmp.dir);
      expect(r.output).to.not.contain('verify OK');
      expect(r.output).to.match(/verify fail/);
      expect(verifyCrlSignature(forged, chain.subCa.der)).to.equal(false);
    });

    it('leaf.crl does NOT verify against the root certificate', async () => {
      const r = await openssl(['crl', '-in', 'leaf.crl', '-inform', 'DER', '-CAfile', 'root.pem', '-noout', '-verify'], tmp.dir);
      expect(r.output).to.not.contain('verify OK');
      expect(verifyCrlSignature(readDer(chain.file('leaf.crl')), chain.root.der)).to.equal(false);
    });

    it('createCrl refuses a key that does not match the issuer certificate', async () => {
      await expectReject(
        createCrl({ issuerCertificateDer: chain.subCa.der, issuerKey: chain.keys.root, crlNumber: 1, revoked: [] }),
        CrlError,
        /does not hold the public key/,
      );
      await expectReject(
        createCrl({ issuerCertificateDer: chain.leaf.der, issuerKey: chain.keys.leaf, crlNumber: 1, revoked: [] }),
        CrlError,
        /not a CA/,
      );
    });
  });

  describe('openssl verify -crl_check_all with leaf.crl and sub-ca.crl', () => {
    const verifyArgs = (target: string, crls = ['leaf.crl', 'sub-ca.crl']) => [
      'verify', '-crl_check_all', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem',
      ...crls.flatMap((c) => ['-CRLfile', c]),
      target,
    ];

    it('a good leaf is OK', async () => {
      const r = await openssl(verifyArgs('leaf.pem'), tmp.dir);
      expect(r.code, r.output).to.equal(0);
      expect(r.stdout.trim()).to.equal('leaf.pem: OK');
    });

    it('a revoked leaf says "certificate revoked"', async () => {
      const r = await openssl(verifyArgs('revoked.pem'), tmp.dir);
      expect(r.code).to.not.equal(0);
      expect(r.output).to.contain('certificate revoked');
      expect(r.output).to.match(/error 23 at 0 depth/);
    });

    it('the sub-CA CRL is really consulted: without it the check fails', async () => {
      const r = await openssl(verifyArgs('leaf.pem', ['leaf.crl']), tmp.dir);
      expect(r.code).to.not.equal(0);
      expect(r.output).to.contain('unable to get certificate CRL');
    });

    it('a revoked sub-CA in sub-ca.crl revokes the chain below it (depth 1)', async () => {
      const other = tempDir();
      try {
        const spare = await chain.vault.ensureKey('spare-sub-ca');
        const sub2 = await issueSubCa({
          subject: { commonName: 'Doomed Sub CA' },
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 60 * DAY),
          subjectPublicKeySpki: spare.publicKeySpki,
          issuer: { certificateDer: chain.root.der, key: chain.keys.root },
          crlUrl: CRL_URL,
        });
        const leaf2 = await issueLeafCertificate({
          subject: { commonName: 'Leaf under doomed sub CA' },
          notBefore: new Date(Date.now() - 60_000),
          notAfter: new Date(Date.now() + 30 * DAY),
          subjectPublicKeySpki: chain.keys.leaf.publicKeySpki,
          issuer: { certificateDer: sub2.der, key: spare },
          crlUrl: CRL_URL,
          ocspUrl: OCSP_URL,
        });
        const rootCrl = await createCrl({
          issuerCertificateDer: chain.root.der,
          issuerKey: chain.keys.root,
          crlNumber: 8,
          revoked: [{ serialHex: sub2.facts.serialHex, revokedAt: new Date(Date.now() - 1000), reason: 'cACompromise' }],
        });
        const subCrl = await createCrl({ issuerCertificateDer: sub2.der, issuerKey: spare, crlNumber: 1, revoked: [] });
        const f = (n: string, d: string | Uint8Array) => {
          const p = path.join(other.dir, n);
          writeFileSync(p, d);
          return p;
        };
        const args = [
          'verify', '-crl_check_all', '-CAfile', chain.file('root.pem'),
          '-untrusted', f('sub2.pem', sub2.pem),
          '-CRLfile', f('root.crl', rootCrl.der), '-CRLfile', f('sub2.crl', subCrl.der),
          f('leaf2.pem', leaf2.pem),
        ];
        const r = await openssl(args);
        expect(r.code).to.not.equal(0);
        expect(r.output).to.contain('certificate revoked');
        expect(r.output).to.match(/error 23 at 1 depth/);
      } finally {
        other.cleanup();
      }
    });
  });

  describe('openssl crl -text', () => {
    let text = '';
    before(async () => {
      const r = await openssl(['crl', '-in', 'leaf.crl', '-inform', 'DER', '-noout', '-text'], tmp.dir);
      expect(r.code, r.stderr).to.equal(0);
      text = r.stdout;
    });

    it('is a v2 CRL signed ecdsa-with-SHA384, issued by the sub-CA, with AKI and CRL number', () => {
      expect(text).to.match(/Version 2 \(0x1\)/);
      expect(text).to.match(/Signature Algorithm: ecdsa-with-SHA384/);
      expect(text).to.match(/Issuer: C = US, O = PKI Test Org, CN = PKI Test Sub CA/);
      expect(text).to.match(/X509v3 CRL Number:\s*\n\s*42\n/);
      const aki = chain.subCa.facts.subjectKeyIdHex!.toUpperCase().match(/../g)!.join(':');
      expect(text).to.match(new RegExp(`X509v3 Authority Key Identifier:\\s*\\n\\s*(keyid:)?${aki}\\n`));
    });

    it('lists every entry, with the reason code (none for unspecified)', () => {
      expect(entryBlock(text, revokedLeaf.facts.serialHex)).to.match(/X509v3 CRL Reason Code:\s*\n\s*Key Compromise$/);
      expect(entryBlock(text, 'FF01')).to.match(/X509v3 CRL Reason Code:\s*\n\s*Superseded$/);
      expect(entryBlock(text, '1234')).to.match(/X509v3 CRL Reason Code:\s*\n\s*AA Compromise$/);
      const unspecified = entryBlock(text, '0A0B0C');
      expect(unspecified).to.contain('Revocation Date');
      expect(unspecified).to.not.contain('Reason Code');
      expect(text.match(/Serial Number:/g)).to.have.length(4);
    });

    it('nextUpdate - thisUpdate = 7 days (openssl -lastupdate / -nextupdate)', async () => {
      expect(CRL_NEXT_UPDATE_MS).to.equal(SEVEN_DAYS_MS);
      const r = await openssl(['crl', '-in', 'leaf.crl', '-inform', 'DER', '-noout', '-lastupdate', '-nextupdate'], tmp.dir);
      const get = (k: string) => new Date(r.stdout.split('\n').find((l) => l.startsWith(`${k}=`))!.slice(k.length + 1));
      expect(get('lastUpdate').getTime()).to.equal(thisUpdate.getTime());
      expect(get('nextUpdate').getTime() - get('lastUpdate').getTime()).to.equal(SEVEN_DAYS_MS);
    });

    it('an empty CRL has no revokedCertificates list ("No Revoked Certificates.")', async () => {
      const r = await openssl(['crl', '-in', 'sub-ca.crl', '-inform', 'DER', '-noout', '-text'], tmp.dir);
      expect(r.stdout).to.contain('No Revoked Certificates.');
      expect(r.stdout).to.match(/X509v3 CRL Number:\s*\n\s*7\n/);
    });

    it('a CRL number beyond 64 bits is encoded as a positive INTEGER openssl reads back', async () => {
      const big = (1n << 100n) + 5n;
      const crl = await createCrl({ issuerCertificateDer: chain.subCa.der, issuerKey: chain.keys.subCa, crlNumber: big, revoked: [] });
      chain.write('big.crl', crl.der);
      const r = await openssl(['crl', '-in', 'big.crl', '-inform', 'DER', '-noout', '-crlnumber'], tmp.dir);
      expect(r.stdout.trim()).to.equal(`crlNumber=0x${big.toString(16).toUpperCase()}`);
      expect(parseCrl(crl.der).crlNumber).to.equal(big);
    });
  });

  describe('parseCrl and input rules', () => {
    it('parseCrl reads back what createCrl wrote', async () => {
      const facts = parseCrl(readDer(chain.file('leaf.crl')));
      expect(facts.issuer).to.equal(chain.subCa.facts.subject);
      expect(facts.crlNumber).to.equal(42n);
      expect(facts.authorityKeyIdHex).to.equal(chain.subCa.facts.subjectKeyIdHex);
      expect(facts.thisUpdate.getTime()).to.equal(thisUpdate.getTime());
      expect(facts.nextUpdate!.getTime()).to.equal(thisUpdate.getTime() + SEVEN_DAYS_MS);
      const bySerial = Object.fromEntries(facts.revoked.map((e) => [e.serialHex, e]));
      expect(bySerial[revokedLeaf.facts.serialHex]).to.deep.equal(entries[0]);
      expect(bySerial.ff01!.reason).to.equal('superseded');
      expect(bySerial['0a0b0c']!.reason).to.equal('unspecified');
      // deterministic order: by serial value
      expect(facts.revoked.map((e) => BigInt(`0x${e.serialHex}`))).to.deep.equal(
        facts.revoked.map((e) => BigInt(`0x${e.serialHex}`)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    });

    it('honours an explicit nextUpdate and defaults thisUpdate to now', async () => {
      const t = new Date('2030-01-01T00:00:00Z');
      const built = buildTbsCertList({ issuerCertificateDer: chain.subCa.der, crlNumber: 1, thisUpdate: t, nextUpdate: new Date('2030-01-02T00:00:00Z'), revoked: [] });
      expect(built.nextUpdate.getTime() - built.thisUpdate.getTime()).to.equal(DAY);
      const before = Math.floor(Date.now() / 1000) * 1000;
      const dflt = buildTbsCertList({ issuerCertificateDer: chain.subCa.der, crlNumber: 1, revoked: [] });
      expect(dflt.thisUpdate.getTime()).to.be.within(before, Date.now());
      expect(dflt.nextUpdate.getTime() - dflt.thisUpdate.getTime()).to.equal(SEVEN_DAYS_MS);
    });

    it('rejects bad input', () => {
      const base = { issuerCertificateDer: chain.subCa.der, crlNumber: 1, thisUpdate, revoked: [] as RevokedEntry[] };
      const at = new Date();
      expect(() => buildTbsCertList({ ...base, nextUpdate: thisUpdate })).to.throw(CrlError, /after thisUpdate/);
      expect(() => buildTbsCertList({ ...base, crlNumber: -1 })).to.throw(CrlError, /CRL number/);
      expect(() => buildTbsCertList({ ...base, crlNumber: 1n << 159n })).to.throw(CrlError, /CRL number/);
      expect(() => buildTbsCertList({ ...base, crlNumber: 1.5 })).to.throw(CrlError, /CRL number/);
      expect(() => buildTbsCertList({ ...base, revoked: [{ serialHex: '01', revokedAt: at, reason: 'removeFromCRL' }] })).to.throw(CrlError, /delta/);
      expect(() => buildTbsCertList({ ...base, revoked: [{ serialHex: '01', revokedAt: at, reason: 'bogus' as never }] })).to.throw(CrlError, /reason/);
      expect(() =>
        buildTbsCertList({ ...base, revoked: [{ serialHex: '01', revokedAt: at, reason: 'superseded' }, { serialHex: '0001', revokedAt: at, reason: 'keyCompromise' }] }),
      ).to.throw(CrlError, /twice/);
      expect(() => buildTbsCertList({ ...base, revoked: [{ serialHex: 'zz', revokedAt: at, reason: 'superseded' }] })).to.throw(/hexadecimal/);
      expect(() => parseCrl(chain.subCa.der)).to.throw(CrlError);
      expect(() => parseCrl(Uint8Array.of(0x30, 0x03, 0x02, 0x01))).to.throw(CrlError);
    });

    it('PEM form of a CRL is accepted by openssl too', async () => {
      const pem = derToPem(readDer(chain.file('leaf.crl')), 'X509 CRL');
      chain.write('leaf.crl.pem', pem);
      const r = await openssl(['crl', '-in', 'leaf.crl.pem', '-CAfile', 'sub-ca.pem', '-noout', '-verify'], tmp.dir);
      expect(r.output).to.contain('verify OK');
    });
  });
});
