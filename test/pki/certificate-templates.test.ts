import { expect } from 'chai';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  C2PA_ACCEPTED_EKUS,
  CertificateIssueError,
  issueLeafCertificate,
  issueRootCa,
  issueSubCa,
  type EndEntityInput,
} from '../../shared/pki/certificate-templates.js';
import { CertificateParseError, nameToString, parseCertificate, readCertificate } from '../../shared/pki/certificate.js';
import { derToPem, pemToDer } from '../../shared/pki/pem.js';
import { LocalKeyVault } from '../../shared/vault/local.js';
import { CRL_URL, DAY, OCSP_URL, expectReject, issueTestChain, openssl, tempDir, type TestChain } from './helpers.js';

const colonHex = (h: string) => h.toUpperCase().match(/../g)!.join(':');

/** The block of `openssl x509 -text` output for one extension: its header line and value lines. */
function extensionBlock(text: string, header: string): string | undefined {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.trim().startsWith(`${header}:`));
  if (i < 0) return undefined;
  const indent = lines[i]!.search(/\S/);
  const out = [lines[i]!.trim()];
  for (const l of lines.slice(i + 1)) {
    if (l.search(/\S/) <= indent) break;
    out.push(l.trim());
  }
  return out.join('\n');
}

describe('pki/certificate-templates: chain issued through VaultKeys, checked by openssl', function () {
  const tmp = tempDir();
  let chain: TestChain;
  const text: Record<string, string> = {};

  before(async () => {
    chain = await issueTestChain(tmp.dir);
    for (const name of ['root', 'sub-ca', 'leaf', 'tsa']) {
      const r = await openssl(['x509', '-in', chain.file(`${name}.pem`), '-noout', '-text'], tmp.dir);
      expect(r.code, r.stderr).to.equal(0);
      text[name] = r.stdout;
    }
  });
  after(() => tmp.cleanup());

  describe('openssl verify', () => {
    it('verifies root -> sub-CA -> leaf', async () => {
      const r = await openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', 'leaf.pem'], tmp.dir);
      expect(r.code, r.output).to.equal(0);
      expect(r.stdout.trim()).to.equal('leaf.pem: OK');
    });

    it('verifies the leaf for -purpose smimesign (emailProtection EKU, digitalSignature)', async () => {
      const r = await openssl(['verify', '-purpose', 'smimesign', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', 'leaf.pem'], tmp.dir);
      expect(r.code, r.output).to.equal(0);
      expect(r.stdout.trim()).to.equal('leaf.pem: OK');
    });

    it('verifies the TSA certificate for -purpose timestampsign, and keeps the two purposes apart', async () => {
      const tsa = await openssl(['verify', '-purpose', 'timestampsign', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', 'tsa.pem'], tmp.dir);
      expect(tsa.code, tsa.output).to.equal(0);
      expect(tsa.stdout.trim()).to.equal('tsa.pem: OK');
      const leafAsTsa = await openssl(['verify', '-purpose', 'timestampsign', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', 'leaf.pem'], tmp.dir);
      expect(leafAsTsa.output).to.match(/unsuitable certificate purpose/);
      const tsaAsSmime = await openssl(['verify', '-purpose', 'smimesign', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', 'tsa.pem'], tmp.dir);
      expect(tsaAsSmime.output).to.match(/unsuitable certificate purpose/);
    });

    it('fails without the sub-CA, and fails against a different root', async () => {
      const noSub = await openssl(['verify', '-CAfile', 'root.pem', 'leaf.pem'], tmp.dir);
      expect(noSub.code).to.not.equal(0);
      expect(noSub.output).to.match(/unable to get local issuer certificate/);
      const other = tempDir();
      try {
        const otherChain = await issueTestChain(other.dir);
        const wrongRoot = await openssl(['verify', '-CAfile', otherChain.file('root.pem'), '-untrusted', 'sub-ca.pem', 'leaf.pem'], tmp.dir);
        expect(wrongRoot.code).to.not.equal(0);
      } finally {
        other.cleanup();
      }
    });
  });

  describe('openssl x509 -text shows the profile', () => {
    it('every certificate is v3 and signed ecdsa-with-SHA384 over a P-384 key', () => {
      for (const t of Object.values(text)) {
        expect(t).to.match(/Version: 3 \(0x2\)/);
        expect(t.match(/Signature Algorithm: ecdsa-with-SHA384/g)).to.have.length(2);
        expect(t).to.match(/NIST CURVE: P-384/);
      }
    });

    it('root CA: self-signed, basicConstraints critical CA:TRUE, keyUsage critical keyCertSign+cRLSign, SKI', () => {
      const t = text.root!;
      expect(t).to.match(/Issuer: C = US, O = PKI Test Org, CN = PKI Test Root CA/);
      expect(t).to.match(/Subject: C = US, O = PKI Test Org, CN = PKI Test Root CA/);
      expect(extensionBlock(t, 'X509v3 Basic Constraints')).to.equal('X509v3 Basic Constraints: critical\nCA:TRUE');
      expect(extensionBlock(t, 'X509v3 Key Usage')).to.equal('X509v3 Key Usage: critical\nCertificate Sign, CRL Sign');
      expect(extensionBlock(t, 'X509v3 Subject Key Identifier')).to.equal(
        `X509v3 Subject Key Identifier:\n${colonHex(chain.root.facts.subjectKeyIdHex!)}`,
      );
      expect(extensionBlock(t, 'X509v3 Authority Key Identifier')).to.equal(undefined);
    });

    it('sub-CA: CA:TRUE pathlen 0, keyUsage, SKI, AKI = root SKI, CRL DP sub-ca.crl, AIA caIssuers root-ca.cer', () => {
      const t = text['sub-ca']!;
      expect(t).to.match(/Issuer: C = US, O = PKI Test Org, CN = PKI Test Root CA/);
      expect(t).to.match(/Subject: C = US, O = PKI Test Org, CN = PKI Test Sub CA/);
      expect(extensionBlock(t, 'X509v3 Basic Constraints')).to.equal('X509v3 Basic Constraints: critical\nCA:TRUE, pathlen:0');
      expect(extensionBlock(t, 'X509v3 Key Usage')).to.equal('X509v3 Key Usage: critical\nCertificate Sign, CRL Sign');
      expect(extensionBlock(t, 'X509v3 Subject Key Identifier')).to.contain(colonHex(chain.subCa.facts.subjectKeyIdHex!));
      expect(extensionBlock(t, 'X509v3 Authority Key Identifier')).to.contain(colonHex(chain.root.facts.subjectKeyIdHex!));
      expect(extensionBlock(t, 'X509v3 CRL Distribution Points')).to.equal(
        `X509v3 CRL Distribution Points:\nFull Name:\nURI:${CRL_URL}/sub-ca.crl`,
      );
      expect(extensionBlock(t, 'Authority Information Access')).to.equal(
        `Authority Information Access:\nCA Issuers - URI:${CRL_URL}/root-ca.cer`,
      );
    });

    it('leaf: CA:FALSE, keyUsage critical digitalSignature, EKU emailProtection, SKI, AKI, AIA OCSP + caIssuers, CRL DP leaf.crl', () => {
      const t = text.leaf!;
      expect(t).to.match(/Issuer: C = US, O = PKI Test Org, CN = PKI Test Sub CA/);
      expect(t).to.match(/Subject: C = US, O = PKI Test Org, CN = PKI Test Leaf/);
      expect(extensionBlock(t, 'X509v3 Basic Constraints')).to.equal('X509v3 Basic Constraints: critical\nCA:FALSE');
      expect(extensionBlock(t, 'X509v3 Key Usage')).to.equal('X509v3 Key Usage: critical\nDigital Signature');
      expect(extensionBlock(t, 'X509v3 Extended Key Usage')).to.equal('X509v3 Extended Key Usage:\nE-mail Protection');
      expect(extensionBlock(t, 'X509v3 Subject Key Identifier')).to.contain(colonHex(chain.leaf.facts.subjectKeyIdHex!));
      expect(extensionBlock(t, 'X509v3 Authority Key Identifier')).to.contain(colonHex(chain.subCa.facts.subjectKeyIdHex!));
      expect(extensionBlock(t, 'Authority Information Access')).to.equal(
        `Authority Information Access:\nOCSP - URI:${OCSP_URL}\nCA Issuers - URI:${CRL_URL}/sub-ca.cer`,
      );
      expect(extensionBlock(t, 'X509v3 CRL Distribution Points')).to.equal(
        `X509v3 CRL Distribution Points:\nFull Name:\nURI:${CRL_URL}/leaf.crl`,
      );
    });

    it('time-stamping certificate: like the leaf, with EKU timeStamping marked critical', () => {
      const t = text.tsa!;
      expect(extensionBlock(t, 'X509v3 Extended Key Usage')).to.equal('X509v3 Extended Key Usage: critical\nTime Stamping');
      expect(extensionBlock(t, 'X509v3 Key Usage')).to.equal('X509v3 Key Usage: critical\nDigital Signature');
      expect(extensionBlock(t, 'X509v3 Basic Constraints')).to.equal('X509v3 Basic Constraints: critical\nCA:FALSE');
      expect(extensionBlock(t, 'Authority Information Access')).to.contain(`OCSP - URI:${OCSP_URL}`);
      expect(extensionBlock(t, 'X509v3 CRL Distribution Points')).to.contain(`URI:${CRL_URL}/leaf.crl`);
    });

    it('the leaf EKU is one c2pa-rs accepts', () => {
      expect(chain.leaf.facts.extendedKeyUsage).to.deep.equal([C2PA_ACCEPTED_EKUS.emailProtection]);
      expect(chain.tsa.facts.extendedKeyUsage).to.deep.equal([C2PA_ACCEPTED_EKUS.timeStamping]);
    });
  });

  describe('facts agree with openssl', () => {
    for (const name of ['root', 'sub-ca', 'leaf', 'tsa'] as const) {
      it(`${name}: serial, subject, issuer, validity, SHA-256 fingerprint`, async () => {
        const cert = { root: chain.root, 'sub-ca': chain.subCa, leaf: chain.leaf, tsa: chain.tsa }[name];
        const r = await openssl(
          ['x509', '-in', `${name}.pem`, '-noout', '-serial', '-subject', '-issuer', '-startdate', '-enddate', '-fingerprint', '-sha256', '-nameopt', 'RFC2253'],
          tmp.dir,
        );
        expect(r.code, r.stderr).to.equal(0);
        const field = (k: string) => r.stdout.split('\n').find((l) => l.startsWith(`${k}=`))!.slice(k.length + 1);
        const f = cert.facts;
        expect(field('serial')).to.equal(f.serialHex.toUpperCase());
        expect(f.serialHex).to.match(/^[0-7][0-9a-f]{31}$/); // 16 bytes, positive
        expect(field('subject')).to.equal(f.subject);
        expect(field('issuer')).to.equal(f.issuer);
        expect(new Date(field('notBefore')).getTime()).to.equal(f.notBefore.getTime());
        expect(new Date(field('notAfter')).getTime()).to.equal(f.notAfter.getTime());
        expect(field('sha256 Fingerprint')).to.equal(colonHex(f.fingerprintSha256));
        expect(parseCertificate(cert.der)).to.deep.equal(f);
      });
    }

    it('reports CA flags and path length', () => {
      expect(chain.root.facts).to.include({ isCa: true, subject: 'CN=PKI Test Root CA,O=PKI Test Org,C=US' });
      expect(chain.root.facts.pathLength).to.equal(undefined);
      expect(chain.subCa.facts).to.include({ isCa: true, pathLength: 0 });
      expect(chain.leaf.facts.isCa).to.equal(false);
      expect(chain.leaf.facts.keyUsage).to.deep.equal(['digitalSignature']);
      expect(chain.subCa.facts.keyUsage).to.deep.equal(['keyCertSign', 'crlSign']);
    });

    it('serials are random per certificate', () => {
      const serials = new Set([chain.root, chain.subCa, chain.leaf, chain.tsa].map((c) => c.facts.serialHex));
      expect(serials.size).to.equal(4);
    });

    it('escapes RFC 4514 specials and keeps UTF-8 like openssl -nameopt RFC2253,utf8,-esc_msb', async () => {
      const leaf = await issueLeafCertificate({
        ...endEntity(chain, 'Acme, Inc. + "Média" <x>'),
        subject: { commonName: 'Acme, Inc. + "Média" <x>', organization: 'Société Générale', country: 'FR' },
      });
      expect(leaf.facts.subject).to.equal('CN=Acme\\, Inc. \\+ \\"Média\\" \\<x\\>,O=Société Générale,C=FR');
      const file = chain.write('special.pem', leaf.pem);
      const r = await openssl(['x509', '-in', file, '-noout', '-subject', '-nameopt', 'RFC2253,utf8,-esc_msb']);
      expect(r.stdout.trim()).to.equal(`subject=${leaf.facts.subject}`);
    });
  });

  describe('validity', () => {
    it('a certificate can live for seconds: valid now, expired a minute later (openssl verify -attime)', async () => {
      const now = Date.now();
      const leaf = await issueLeafCertificate({ ...endEntity(chain, 'Short Lived'), notBefore: new Date(now - 1000), notAfter: new Date(now + 5000) });
      expect(leaf.facts.notAfter.getTime()).to.equal(Math.floor((now + 5000) / 1000) * 1000);
      const file = chain.write('short.pem', leaf.pem);
      const ok = await openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', file], tmp.dir);
      expect(ok.code, ok.output).to.equal(0);
      const later = String(Math.floor(now / 1000) + 60);
      const expired = await openssl(['verify', '-attime', later, '-CAfile', 'root.pem', '-untrusted', 'sub-ca.pem', file], tmp.dir);
      expect(expired.code).to.not.equal(0);
      expect(expired.output).to.match(/certificate has expired/);
    });

    it('uses GeneralizedTime from 2050 on (RFC 5280 4.1.2.5)', async () => {
      const other = tempDir();
      try {
          const key = await new LocalKeyVault(other.dir).ensureKey('long-root');
        const root = await issueRootCa({
          subject: { commonName: 'Long Root' },
          notBefore: new Date('2049-12-31T23:59:59.999Z'),
          notAfter: new Date('2060-06-01T12:00:00Z'),
          key,
        });
        expect(root.facts.notBefore.toISOString()).to.equal('2049-12-31T23:59:59.000Z');
        expect(root.facts.notAfter.toISOString()).to.equal('2060-06-01T12:00:00.000Z');
        const file = path.join(other.dir, 'long.pem');
        writeFileSync(file, root.pem);
        const asn1 = await openssl(['asn1parse', '-in', file]);
        expect(asn1.stdout).to.match(/UTCTIME\s+:491231235959Z/);
        expect(asn1.stdout).to.match(/GENERALIZEDTIME\s+:20600601120000Z/);
      } finally {
        other.cleanup();
      }
    });
  });

  describe('PEM and DER', () => {
    it('PEM from issuance is what openssl writes back, and DER round-trips', async () => {
      const derFile = chain.write('leaf.der', chain.leaf.der);
      const r = await openssl(['x509', '-inform', 'DER', '-in', derFile, '-outform', 'PEM']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(chain.leaf.pem);
      expect(Buffer.from(pemToDer(chain.leaf.pem)).equals(Buffer.from(chain.leaf.der))).to.equal(true);
      expect(derToPem(chain.leaf.der)).to.equal(chain.leaf.pem);
    });

    it('is DER: a strict ASN.1 parse and re-encode gives the same bytes', () => {
      for (const c of [chain.root, chain.subCa, chain.leaf, chain.tsa]) {
        const again = new Uint8Array(AsnConvert.serialize(AsnConvert.parse(c.der, Certificate)));
        expect(Buffer.from(again).equals(Buffer.from(c.der))).to.equal(true);
      }
    });

    it('parseCertificate rejects what is not a DER certificate', () => {
      expect(() => parseCertificate(Uint8Array.of(0x30, 0x00))).to.throw(CertificateParseError);
      expect(() => parseCertificate(new Uint8Array([...chain.leaf.der, 0]))).to.throw(CertificateParseError, /trailing/);
      expect(() => parseCertificate(chain.keys.leaf.publicKeySpki)).to.throw(CertificateParseError);
    });

    it('readCertificate exposes the exact subject Name and SPKI bytes', () => {
      const parts = readCertificate(chain.leaf.der);
      expect(nameToString(parts.subjectNameDer)).to.equal(chain.leaf.facts.subject);
      expect(Buffer.from(parts.spkiDer).equals(Buffer.from(chain.keys.leaf.publicKeySpki))).to.equal(true);
      expect(Buffer.from(readCertificate(chain.subCa.der).subjectNameDer).equals(Buffer.from(parts.issuerNameDer))).to.equal(true);
    });
  });

  describe('refuses to issue what would not verify or not be allowed', () => {
    it('an issuer key that does not match the issuer certificate', async () => {
      await expectReject(
        issueLeafCertificate({ ...endEntity(chain, 'x'), issuer: { certificateDer: chain.subCa.der, key: chain.keys.root } }),
        CertificateIssueError,
        /does not hold the public key/,
      );
    });

    it('an issuer that is not a CA', async () => {
      await expectReject(
        issueLeafCertificate({ ...endEntity(chain, 'x'), issuer: { certificateDer: chain.leaf.der, key: chain.keys.leaf } }),
        CertificateIssueError,
        /not a CA/,
      );
    });

    it('a CA under the pathlen-0 sub-CA', async () => {
      await expectReject(
        issueSubCa({
          subject: { commonName: 'Sub-sub CA' },
          notBefore: new Date(),
          notAfter: new Date(Date.now() + DAY),
          subjectPublicKeySpki: chain.keys.tsa.publicKeySpki,
          issuer: { certificateDer: chain.subCa.der, key: chain.keys.subCa },
          crlUrl: CRL_URL,
        }),
        CertificateIssueError,
        /pathLenConstraint 0/,
      );
    });

    it('a certificate outliving its issuer, or with notAfter not after notBefore', async () => {
      await expectReject(
        issueLeafCertificate({ ...endEntity(chain, 'x'), notAfter: new Date(chain.subCa.facts.notAfter.getTime() + 1000) }),
        CertificateIssueError,
        /issuer's notAfter/,
      );
      const t = new Date();
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), notBefore: t, notAfter: new Date(t.getTime() + 10) }), CertificateIssueError, /after notBefore/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), notBefore: new Date('nope') }), CertificateIssueError, /valid date/);
    });

    it('bad subject fields, URLs and public keys', async () => {
      await expectReject(issueLeafCertificate({ ...endEntity(chain, '  ') }), CertificateIssueError, /commonName/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'.repeat(65)) }), CertificateIssueError, /64/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), subject: { commonName: 'x', country: 'USA' } }), CertificateIssueError, /country/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), crlUrl: 'ftp://x' }), CertificateIssueError, /http/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), ocspUrl: 'not a url' }), CertificateIssueError, /URL/);
      await expectReject(issueLeafCertificate({ ...endEntity(chain, 'x'), subjectPublicKeySpki: Uint8Array.of(0x30, 0) }), CertificateIssueError, /SubjectPublicKeyInfo/);
    });

    it('a root whose vault key is not P-384', async () => {
      const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const key = { name: 'p256', publicKeySpki: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })), signEs384: async () => new Uint8Array(96) };
      await expectReject(issueRootCa({ subject: { commonName: 'x' }, notBefore: new Date(), notAfter: new Date(Date.now() + DAY), key }), Error, /P-384/);
    });
  });

  it('can add digitalSignature to CA keyUsage for CAs that sign OCSP responses themselves', async () => {
    const other = tempDir();
    try {
      const key = await new LocalKeyVault(other.dir).ensureKey('ocsp-root');
      const root = await issueRootCa({ subject: { commonName: 'R' }, notBefore: new Date(), notAfter: new Date(Date.now() + DAY), key, signsOcsp: true });
      expect(root.facts.keyUsage).to.deep.equal(['digitalSignature', 'keyCertSign', 'crlSign']);
    } finally {
      other.cleanup();
    }
  });
});

function endEntity(chain: TestChain, commonName: string): EndEntityInput {
  const now = Date.now();
  return {
    subject: { commonName, organization: 'PKI Test Org' },
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 30 * DAY),
    subjectPublicKeySpki: chain.keys.leaf.publicKeySpki,
    issuer: { certificateDer: chain.subCa.der, key: chain.keys.subCa },
    crlUrl: CRL_URL,
    ocspUrl: OCSP_URL,
  };
}
