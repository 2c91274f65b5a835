/**
 * The certificate authority on real Postgres: set-up, rotation, revocation with CRLs, the signing identity,
 * and what a vault failure half way leaves behind. Certificates and CRLs are judged by OpenSSL.
 */
import { expect } from 'chai';
import { X509Certificate, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Certificate } from '../../shared/db/repositories/certificates.js';
import { Crl } from '../../shared/db/repositories/crls.js';
import { NoSigningCertificateError, loadSigningIdentity } from '../../shared/pki/signing-identity.js';
import { PkiError, RevocationFollowUpError } from '../../shared/pki/errors.js';
import { initPki } from '../../shared/pki/init.js';
import { listCertificates } from '../../shared/pki/certificate-listing.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { rotateLeaf } from '../../shared/pki/rotation.js';
import { parseCertificate } from '../../shared/pki/certificate.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { publishCrl, publishCrls } from '../../shared/pki/crl-publisher.js';
import { InProcessPkiEvents, type PkiEvent } from '../../shared/pki/pki-events.js';
import { VaultUnavailableError } from '../../shared/vault/types.js';
import { failingVault, openssl, startTrust, writePems, type TrustFixture } from './support.js';

const DAY = 24 * 60 * 60 * 1000;

describe('trust: certificate authority on Postgres', function () {
  let t: TrustFixture;
  let events: InProcessPkiEvents;
  const heard: PkiEvent[] = [];
  const work = mkdtempSync(path.join(tmpdir(), 'trust-authority-'));

  before(async function () {
    t = await startTrust();
    events = new InProcessPkiEvents();
    await events.subscribe((n) => {
      if (n.kind !== 'resync') heard.push(n);
    });
  });

  after(async function () {
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const deps = () => ({ ...t.deps, events });
  const crlFile = (name: string) => new Uint8Array(readFileSync(path.join(t.crlDir, name)));

  it('has no signing identity before init', async function () {
    try {
      await loadSigningIdentity(t.deps);
      expect.fail('expected NoSigningCertificateError');
    } catch (err) {
      expect(err).to.be.instanceOf(NoSigningCertificateError);
    }
  });

  it('init issues root, sub-CA, leaf and TSA certificate once; a second init issues nothing', async function () {
    const first = await initPki(deps());
    expect(first.issued.map((c) => c.role)).to.deep.equal(['root', 'sub_ca', 'leaf', 'tsa']);
    expect(first.crls.map((c) => [c.name, c.action, c.crlNumber])).to.deep.equal([
      ['leaf.crl', 'published', 1],
      ['sub-ca.crl', 'published', 1],
    ]);
    expect(heard.map((e) => e.kind === 'issued' && e.role)).to.deep.equal(['root', 'sub_ca', 'leaf', 'tsa']);

    const second = await initPki(deps());
    expect(second.issued).to.deep.equal([]);
    expect(second.crls.map((c) => c.action)).to.deep.equal(['kept', 'kept']);
    expect([second.root.id, second.subCa.id, second.leaf.id, second.tsa.id]).to.deep.equal([first.root.id, first.subCa.id, first.leaf.id, first.tsa.id]);
    expect(await Certificate.query(t.db.knex).resultSize()).to.equal(4);
    expect(await Crl.query(t.db.knex).resultSize()).to.equal(2);
  });

  it('stores serial, role, issuer, validity, DER and fingerprint of each certificate', async function () {
    const rows = await Certificate.query(t.db.knex).orderBy('created_at');
    const [root, subCa, leaf, tsa] = rows as [Certificate, Certificate, Certificate, Certificate];
    for (const row of rows) {
      const facts = parseCertificate(row.der);
      expect(row.serial).to.equal(facts.serialHex);
      expect(row.subject).to.equal(facts.subject);
      expect(row.issuer).to.equal(facts.issuer);
      expect(row.not_before.getTime()).to.equal(facts.notBefore.getTime());
      expect(row.not_after.getTime()).to.equal(facts.notAfter.getTime());
      expect(row.fingerprint_sha256).to.equal(facts.fingerprintSha256);
      expect(row.status()).to.equal('valid');
    }
    expect([root.issuer_id, subCa.issuer_id, leaf.issuer_id, tsa.issuer_id]).to.deep.equal([null, root.id, subCa.id, subCa.id]);
    expect([root.key_name, subCa.key_name, leaf.key_name, tsa.key_name]).to.deep.equal([t.config.rootKeyName, t.config.subCaKeyName, t.config.leafKeyName, t.config.tsaKeyName]);
    expect(tsa.subject).to.equal('CN=Trust Test Org Time Stamping,O=Trust Test Org,C=GB');
    expect(root.subject).to.equal('CN=Trust Test Org Root CA,O=Trust Test Org,C=GB');
    expect(leaf.subject).to.equal('CN=Trust Test Org C2PA Signing,O=Trust Test Org,C=GB');
    // Lifetimes: about 20 years, 10 years (pathLen 0) and LEAF_VALIDITY_DAYS.
    const years = (c: Certificate) => (c.not_after.getTime() - c.not_before.getTime()) / (365.25 * DAY);
    expect(years(root)).to.be.closeTo(20, 0.01);
    expect(years(subCa)).to.be.closeTo(10, 0.01);
    expect((leaf.not_after.getTime() - Date.now()) / DAY).to.be.closeTo(365, 0.01);
    expect(parseCertificate(subCa.der).pathLength).to.equal(0);
  });

  it('the chain from the database passes openssl verify, with the URLs in the leaf', async function () {
    const [root, subCa, leaf] = (await Certificate.query(t.db.knex).orderBy('created_at')) as [Certificate, Certificate, Certificate];
    const f = writePems(work, { root, subCa, leaf });
    const r = await openssl(['verify', '-x509_strict', '-purpose', 'smimesign', '-CAfile', f.root!, '-untrusted', f.subCa!, f.leaf!]);
    expect(r.code, r.output).to.equal(0);
    expect(r.stdout).to.include(': OK');
    const text = (await openssl(['x509', '-in', f.leaf!, '-noout', '-text'])).stdout;
    expect(text).to.include('OCSP - URI:http://ocsp.trust.test');
    expect(text).to.include('CA Issuers - URI:http://crl.trust.test/sub-ca.cer');
    expect(text).to.include('URI:http://crl.trust.test/leaf.crl');
  });

  it('loadSigningIdentity returns the leaf, its chain and a vault key holding the leaf key', async function () {
    const leaf = (await Certificate.query(t.db.knex).findOne({ role: 'leaf' }))!;
    const subCa = (await Certificate.query(t.db.knex).findOne({ role: 'sub_ca' }))!;
    const identity = await loadSigningIdentity(t.deps);
    expect(identity.serial).to.equal(leaf.serial);
    expect(identity.chainDer.map((d) => Buffer.from(d).toString('hex'))).to.deep.equal([leaf.der, subCa.der].map((d) => Buffer.from(d).toString('hex')));
    const data = Buffer.from('signed by the leaf');
    const signature = await identity.key.signEs384(data);
    const { publicKey } = new X509Certificate(Buffer.from(identity.chainDer[0]!));
    expect(verify('sha384', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).to.equal(true);
  });

  it('CRL files are DER CRLs that openssl verifies, nextUpdate 7 days after thisUpdate', async function () {
    const subCa = (await Certificate.query(t.db.knex).findOne({ role: 'sub_ca' }))!;
    const root = (await Certificate.query(t.db.knex).findOne({ role: 'root' }))!;
    const f = writePems(work, { root, subCa });
    for (const [name, issuer] of [['leaf.crl', f.subCa!], ['sub-ca.crl', f.root!]] as const) {
      const r = await openssl(['crl', '-inform', 'DER', '-in', path.join(t.crlDir, name), '-CAfile', issuer, '-noout', '-text']);
      expect(r.output, name).to.include('verify OK');
      expect(r.stdout).to.include('X509v3 CRL Number');
      const facts = parseCrl(crlFile(name));
      expect(facts.nextUpdate!.getTime() - facts.thisUpdate.getTime()).to.equal(7 * DAY);
    }
    // The CA certificates are published next to them, DER.
    expect(Buffer.from(crlFile('root-ca.cer')).equals(Buffer.from(root.der))).to.equal(true);
    expect(Buffer.from(crlFile('sub-ca.cer')).equals(Buffer.from(subCa.der))).to.equal(true);
  });

  it('rotate-leaf issues a new leaf that signs from then on', async function () {
    const before = await loadSigningIdentity(t.deps);
    heard.length = 0;
    const leaf = await rotateLeaf(deps());
    expect(leaf.serial).to.not.equal(before.serial);
    const after = await loadSigningIdentity(t.deps);
    expect(after.serial).to.equal(leaf.serial);
    expect(heard).to.deep.equal([{ kind: 'issued', serial: leaf.serial, role: 'leaf' }]);
    const listing = await listCertificates(t.deps);
    expect(listing.map((c) => [c.role, c.current])).to.deep.equal([
      ['root', true],
      ['sub_ca', true],
      ['leaf', true],
      ['leaf', false],
      ['tsa', true],
    ]);
    expect(listing[2]!.serial).to.equal(leaf.serial);
  });

  it('revoke reissues leaf.crl at once with a higher number and the serial + reason; openssl says revoked', async function () {
    const current = await loadSigningIdentity(t.deps);
    const previousNumber = parseCrl(crlFile('leaf.crl')).crlNumber!;
    heard.length = 0;
    const result = await revokeCertificate(deps(), current.serial.toUpperCase(), 'keyCompromise');
    expect(result.alreadyRevoked).to.equal(false);
    expect(result.certificate.revocation_reason).to.equal('keyCompromise');
    expect(heard).to.deep.equal([{ kind: 'revoked', serial: current.serial }]);
    expect(result.crl).to.include({ name: 'leaf.crl', action: 'published', revokedCount: 1 });

    const crl = parseCrl(crlFile('leaf.crl'));
    expect(crl.crlNumber! > previousNumber).to.equal(true);
    expect(crl.revoked.map((e) => [e.serialHex, e.reason])).to.deep.equal([[current.serial, 'keyCompromise']]);
    expect(crl.revoked[0]!.revokedAt.getTime()).to.equal(result.certificate.revoked_at!.getTime());

    const [root, subCa, leaf] = await Promise.all(
      ['root', 'sub_ca'].map((role) => Certificate.query(t.db.knex).findOne({ role })).concat(Certificate.query(t.db.knex).findOne({ serial: current.serial })),
    );
    const f = writePems(work, { root: root!, subCa: subCa!, revoked: leaf! });
    const text = await openssl(['crl', '-inform', 'DER', '-in', path.join(t.crlDir, 'leaf.crl'), '-CAfile', f.subCa!, '-noout', '-text']);
    expect(text.output).to.include('verify OK');
    expect(text.stdout).to.include(`Serial Number: ${current.serial.toUpperCase()}`);
    expect(text.stdout).to.include('Key Compromise');

    await Promise.all(['leaf.crl', 'sub-ca.crl'].map((n) => openssl(['crl', '-inform', 'DER', '-in', path.join(t.crlDir, n), '-out', path.join(work, `${n}.pem`)])));
    const verdict = await openssl([
      'verify', '-crl_check_all', '-CAfile', f.root!, '-untrusted', f.subCa!,
      '-CRLfile', path.join(work, 'leaf.crl.pem'), '-CRLfile', path.join(work, 'sub-ca.crl.pem'), f.revoked!,
    ]);
    expect(verdict.code).to.not.equal(0);
    expect(verdict.output).to.include('certificate revoked');
  });

  it('after revoking the newest leaf the previous valid one signs; with none left there is no identity', async function () {
    const listing = await listCertificates(t.deps);
    const older = listing.find((c) => c.role === 'leaf' && c.status === 'valid')!;
    expect((await loadSigningIdentity(t.deps)).serial).to.equal(older.serial);
    await revokeCertificate(deps(), older.serial, 'superseded');
    try {
      await loadSigningIdentity(t.deps);
      expect.fail('expected NoSigningCertificateError');
    } catch (err) {
      expect(err).to.be.instanceOf(NoSigningCertificateError);
    }
    const crl = parseCrl(crlFile('leaf.crl'));
    expect(crl.revoked.map((e) => e.reason).sort()).to.deep.equal(['keyCompromise', 'superseded']);
    // init now issues just a new leaf under the same sub-CA.
    const again = await initPki(deps());
    expect(again.issued.map((c) => c.role)).to.deep.equal(['leaf']);
    expect((await loadSigningIdentity(t.deps)).serial).to.equal(again.leaf.serial);
  });

  it('revoking again keeps the first time and reason, and reissues the CRL (a retry)', async function () {
    const revoked = (await Certificate.query(t.db.knex).whereNotNull('revoked_at').orderBy('revoked_at').first())!;
    const before = parseCrl(crlFile('leaf.crl')).crlNumber!;
    const result = await revokeCertificate(deps(), revoked.serial, 'cessationOfOperation');
    expect(result.alreadyRevoked).to.equal(true);
    expect(result.certificate.revocation_reason).to.equal(revoked.revocation_reason);
    expect(parseCrl(crlFile('leaf.crl')).crlNumber).to.equal(before + 1n);
  });

  it('refuses unknown serials, roots, malformed serials and removeFromCRL', async function () {
    const root = (await Certificate.query(t.db.knex).findOne({ role: 'root' }))!;
    const cases: Array<[string, string, RegExp]> = [
      ['0123456789abcdef', 'keyCompromise', /no certificate with serial 0123456789abcdef/],
      [root.serial, 'keyCompromise', /root CA cannot be revoked/],
      ['xyz', 'keyCompromise', /not hexadecimal/],
      [root.serial, 'removeFromCRL', /removeFromCRL/],
    ];
    for (const [serial, reason, message] of cases) {
      try {
        await revokeCertificate(deps(), serial, reason as never);
        expect.fail(`expected a PkiError for ${serial} ${reason}`);
      } catch (err) {
        expect(err).to.be.instanceOf(PkiError);
        expect((err as Error).message).to.match(message);
      }
    }
  });

  it('revoking the sub-CA reissues sub-ca.crl; init then issues a new sub-CA and leaf, and a leaf.crl for it', async function () {
    const subCa = (await Certificate.query(t.db.knex).findOne({ role: 'sub_ca' }))!;
    const result = await revokeCertificate(deps(), subCa.serial, 'cACompromise');
    expect(result.crl).to.include({ name: 'sub-ca.crl', action: 'published', revokedCount: 1 });
    expect(parseCrl(crlFile('sub-ca.crl')).revoked.map((e) => [e.serialHex, e.reason])).to.deep.equal([[subCa.serial, 'cACompromise']]);
    try {
      await loadSigningIdentity(t.deps);
      expect.fail('a leaf under a revoked sub-CA must not sign');
    } catch (err) {
      expect(err).to.be.instanceOf(NoSigningCertificateError);
    }
    const again = await initPki(deps());
    expect(again.issued.map((c) => c.role)).to.deep.equal(['sub_ca', 'leaf', 'tsa']);
    const leafCrl = again.crls.find((c) => c.name === 'leaf.crl')!;
    expect(leafCrl).to.include({ action: 'published', crlNumber: 1, issuerSerial: again.subCa.serial });
    expect(parseCrl(crlFile('leaf.crl')).issuer).to.equal(again.subCa.subject);
    expect(Buffer.from(crlFile('sub-ca.cer')).equals(Buffer.from(again.subCa.der))).to.equal(true);
  });

  it('concurrent publishers take turns: distinct, increasing CRL numbers', async function () {
    const outcomes = await Promise.all([publishCrl(t.deps, 'leaf.crl'), publishCrl(t.deps, 'leaf.crl'), publishCrl(t.deps, 'leaf.crl')]);
    const numbers = outcomes.map((o) => o.crlNumber!).sort((a, b) => a - b);
    expect(new Set(numbers).size).to.equal(3);
    expect(numbers[2]! - numbers[0]!).to.equal(2);
    // The file is the newest of them.
    expect(parseCrl(crlFile('leaf.crl')).crlNumber).to.equal(BigInt(numbers[2]!));
  });

  it('a scheduled run issues one CRL per tick however many schedulers run it', async function () {
    const since = new Date();
    const runs = await Promise.all([publishCrls(t.deps, { when: 'since', since }), publishCrls(t.deps, { when: 'since', since })]);
    const actions = runs.flat().map((o) => `${o.name}:${o.action}`).sort();
    expect(actions).to.deep.equal(['leaf.crl:kept', 'leaf.crl:published', 'sub-ca.crl:kept', 'sub-ca.crl:published']);
    // At start-up ("stale" rule) a fresh CRL is kept.
    expect((await publishCrls(t.deps, { when: 'stale' })).map((o) => o.action)).to.deep.equal(['kept', 'kept']);
  });
});

describe('trust: init against a failing vault', function () {
  let t: TrustFixture;

  before(async function () {
    t = await startTrust();
  });

  after(async function () {
    await t?.close();
  });

  it('leaves no half-written rows, and a restarted init completes the chain', async function () {
    const outage = () => new VaultUnavailableError('vault down (test)');
    // The root is self-signed; the sub-CA key never signs during init, the root key signs root then sub-CA:
    // failing the root key's second signature is a failure after the root certificate was made.
    const broken = failingVault(t.vault, t.config.rootKeyName, outage, 1);
    try {
      await initPki({ ...t.deps, vault: broken });
      expect.fail('expected the vault failure');
    } catch (err) {
      expect(err).to.be.instanceOf(VaultUnavailableError);
    }
    expect(await Certificate.query(t.db.knex).resultSize()).to.equal(0);

    // The sub-CA key fails when signing the leaf: root and sub-CA were made, nothing is kept.
    const leafFails = failingVault(t.vault, t.config.subCaKeyName, outage, 0);
    try {
      await initPki({ ...t.deps, vault: leafFails });
      expect.fail('expected the vault failure');
    } catch (err) {
      expect(err).to.be.instanceOf(VaultUnavailableError);
    }
    expect(await Certificate.query(t.db.knex).resultSize()).to.equal(0);
    expect(await Crl.query(t.db.knex).resultSize()).to.equal(0);

    const done = await initPki(t.deps);
    expect(done.issued.map((c) => c.role)).to.deep.equal(['root', 'sub_ca', 'leaf', 'tsa']);
  });

  it('a revocation whose CRL cannot be signed is recorded and announced; revoking again completes it', async function () {
    const leaf = (await Certificate.query(t.db.knex).findOne({ role: 'leaf' }))!;
    const events = new InProcessPkiEvents();
    const heard: PkiEvent[] = [];
    await events.subscribe((n) => {
      if (n.kind !== 'resync') heard.push(n);
    });
    const broken = failingVault(t.vault, t.config.subCaKeyName, () => new VaultUnavailableError('vault down (test)'));
    try {
      await revokeCertificate({ ...t.deps, vault: broken, events }, leaf.serial, 'keyCompromise');
      expect.fail('expected RevocationFollowUpError');
    } catch (err) {
      expect(err).to.be.instanceOf(RevocationFollowUpError);
      expect((err as Error).message).to.match(/is revoked in the database.*vault down \(test\).*run the revocation again/);
    }
    expect((await Certificate.query(t.db.knex).findById(leaf.id))!.status()).to.equal('revoked');
    expect(heard).to.deep.equal([{ kind: 'revoked', serial: leaf.serial }]);
    expect(parseCrl(new Uint8Array(readFileSync(path.join(t.crlDir, 'leaf.crl')))).revoked).to.deep.equal([]);

    const retry = await revokeCertificate({ ...t.deps, events }, leaf.serial, 'keyCompromise');
    expect(retry.alreadyRevoked).to.equal(true);
    expect(parseCrl(new Uint8Array(readFileSync(path.join(t.crlDir, 'leaf.crl')))).revoked.map((e) => e.serialHex)).to.deep.equal([leaf.serial]);
  });

  it('two inits at once issue one chain', async function () {
    const t2 = await startTrust();
    try {
      const [a, b] = await Promise.all([initPki(t2.deps), initPki(t2.deps)]);
      expect(a.issued.length + b.issued.length).to.equal(4);
      expect(await Certificate.query(t2.db.knex).resultSize()).to.equal(4);
    } finally {
      await t2.close();
    }
  });
});
