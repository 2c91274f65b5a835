/**
 * The service's own TSA as deployed: its certificate issued by `initPki` under the sub-CA (key in the vault),
 * served by the trust-services (ocsp) role on TSA_PORT, listed in the CRL and answered by OCSP like any other
 * certificate, refused once revoked, and back after `npm run pki -- rotate-tsa` (a notice over LISTEN/NOTIFY
 * from the CLI process). Judged by openssl and c2pa-rs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { Certificate } from '../../shared/db/repositories/certificates.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { loadSigningIdentity } from '../../shared/pki/signing-identity.js';
import { loadTsaIdentity } from '../../shared/tsa/identity.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { readCertificate } from '../../shared/pki/certificate.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { derToPem } from '../../shared/pki/pem.js';
import { PostgresPkiEvents } from '../../shared/pki/pki-events.js';
import { samePublicKey } from '../../shared/pki/tbs-signer.js';
import { NoTsaCertificateError } from '../../shared/tsa/authority.js';
import { requestTimestamp } from '../../shared/tsa/client.js';
import { fixture } from '../c2pa/helpers.js';
import { openssl, pkiCli, startTrust, writePems, type TrustFixture } from '../trust/support.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test-tsa');

describe('tsa: the service TSA in the trust-services role, on Postgres', function () {
  this.timeout(60_000);
  let t: TrustFixture;
  let pki: InitPkiResult;
  let events: PostgresPkiEvents;
  let role: OcspRole;
  let files: Record<string, string>;
  const dir = mkdtempSync(path.join(tmpdir(), 'tsa-trust-'));
  const f = (name: string) => path.join(dir, name);
  const tsaUrl = () => `http://127.0.0.1:${role.tsaPort}/`;

  before(async function () {
    t = await startTrust();
    pki = await initPki(t.deps);
    events = new PostgresPkiEvents(t.db.knex, t.db.url, logger);
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
    files = writePems(dir, { root: pki.root, subCa: pki.subCa, leaf: pki.leaf, tsa: pki.tsa });
    writeFileSync(f('data.txt'), 'stamp me\n');
  });

  after(async function () {
    await role?.();
    await events?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** openssl ts -query | POST | openssl ts -verify; returns the reply text and the verify output. */
  async function stamp(name: string): Promise<{ reply: string; verify: string }> {
    await openssl(['ts', '-query', '-data', f('data.txt'), '-sha256', '-cert', '-out', f(`${name}.tsq`)]);
    const res = await fetch(tsaUrl(), { method: 'POST', headers: { 'Content-Type': 'application/timestamp-query' }, body: readFileSync(f(`${name}.tsq`)) });
    expect(res.headers.get('content-type')).to.equal('application/timestamp-reply');
    writeFileSync(f(`${name}.tsr`), Buffer.from(await res.arrayBuffer()));
    const reply = (await openssl(['ts', '-reply', '-in', f(`${name}.tsr`), '-text'])).stdout;
    const verify = (await openssl(['ts', '-verify', '-in', f(`${name}.tsr`), '-queryfile', f(`${name}.tsq`), '-CAfile', files.root!, '-untrusted', files.subCa!])).output;
    return { reply, verify };
  }

  it('init issues the TSA certificate under the sub-CA: digitalSignature, EKU timeStamping (critical), AIA and CRL like the leaf', async function () {
    expect(pki.tsa.role).to.equal('tsa');
    expect(pki.tsa.issuer_id).to.equal(pki.subCa.id);
    expect(pki.tsa.key_name).to.equal('tsa-signing');
    const key = await t.vault.getKey(t.config.tsaKeyName);
    expect(samePublicKey(readCertificate(pki.tsa.der).spkiDer, key.publicKeySpki)).to.equal(true);
    const text = (await openssl(['x509', '-in', files.tsa!, '-noout', '-text'])).stdout;
    expect(text).to.match(/X509v3 Key Usage: critical\s+Digital Signature\n/);
    expect(text).to.match(/X509v3 Extended Key Usage: critical\s+Time Stamping\n/);
    expect(text).to.include('OCSP - URI:http://ocsp.trust.test');
    expect(text).to.include('CA Issuers - URI:http://crl.trust.test/sub-ca.cer');
    expect(text).to.include('URI:http://crl.trust.test/leaf.crl');
    expect(text).to.include('Subject: C = GB, O = Trust Test Org, CN = Trust Test Org Time Stamping');
    const v = await openssl(['verify', '-purpose', 'timestampsign', '-CAfile', files.root!, '-untrusted', files.subCa!, files.tsa!]);
    expect(v.stdout.trim(), v.output).to.equal(`${files.tsa}: OK`);
    expect((await loadTsaIdentity(t.deps)).serial).to.equal(pki.tsa.serial);
  });

  it('the role serves RFC 3161 on TSA_PORT: openssl verifies the reply against the root', async function () {
    const { reply, verify } = await stamp('first');
    expect(verify).to.include('Verification: OK');
    expect(reply).to.include(`Policy OID: ${t.config.tsaPolicyOid}`);
    const health = await fetch(new URL('/health', tsaUrl()));
    expect(health.status).to.equal(200);
  });

  it('a file signed with the service leaf and stamped by the service TSA reads Trusted with a trusted timestamp', async function () {
    const identity = await loadSigningIdentity(t.deps);
    const signed = await signAsset({
      bytes: await fixture('photo.jpg'),
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'p', creator: 'c' }, { sourceHasManifest: false }),
      key: identity.key,
      chainDer: identity.chainDer,
      timestamper: async (input) => (await requestTimestamp(input, { url: tsaUrl(), policy: t.config.tsaPolicyOid })).token,
    });
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: derToPem(pki.root.der) });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.timestamp).to.include({ validated: true, trusted: true });
  });

  it('its certificate is in the OCSP and CRL data like any other: good, then revoked, and the TSA stops signing', async function () {
    const ocsp = () => openssl(['ocsp', '-no_nonce', '-issuer', files.subCa!, '-cert', files.tsa!, '-url', `http://127.0.0.1:${role.ocspPort}/`, '-CAfile', files.root!], dir);
    const good = await ocsp();
    expect(good.output).to.include('Response verify OK');
    expect(good.stdout).to.match(/tsa\.pem: good/);

    const other = new PostgresPkiEvents(t.db.knex, t.db.url);
    try {
      const result = await revokeCertificate({ ...t.deps, events: other }, pki.tsa.serial, 'keyCompromise');
      expect(result.crl).to.include({ name: 'leaf.crl', action: 'published' });
    } finally {
      await other.close();
    }
    const crl = parseCrl(new Uint8Array(readFileSync(path.join(t.crlDir, 'leaf.crl'))));
    expect(crl.revoked.map((e) => [e.serialHex, e.reason])).to.deep.equal([[pki.tsa.serial, 'keyCompromise']]);

    // The notice reaches the role over LISTEN/NOTIFY: OCSP answers revoked and the TSA refuses to sign.
    let answer = await ocsp();
    for (let i = 0; i < 50 && !/tsa\.pem: revoked/.test(answer.stdout); i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await ocsp();
    }
    expect(answer.stdout).to.match(/tsa\.pem: revoked/);
    const refused = await stamp('revoked');
    expect(refused.reply).to.include('Status: Rejected.');
    expect(refused.reply).to.include('Failure info: the request cannot be handled due to system failure');
    try {
      await loadTsaIdentity(t.deps);
      expect.fail('a revoked TSA certificate must not sign');
    } catch (err) {
      expect(err).to.be.instanceOf(NoTsaCertificateError);
    }
  });

  it('`npm run pki -- rotate-tsa` issues a new TSA certificate; the running TSA signs with it', async function () {
    const rotation = await pkiCli(t, { PKI_ORGANISATION: 'Trust Test Org', PKI_COUNTRY: 'GB' })('rotate-tsa');
    expect(rotation.code, rotation.stderr).to.equal(0);
    const out = rotation.stdout;
    expect(out).to.match(/^tsa +[0-9a-f]{32} {2}issued {2}CN=Trust Test Org Time Stamping/m);
    const rotated = (await Certificate.query(t.db.knex).where({ role: 'tsa' }).whereNull('revoked_at').first())!;
    writeFileSync(f('tsa2.pem'), derToPem(rotated.der));

    let result = await stamp('rotated');
    for (let i = 0; i < 50 && !result.reply.includes('Status: Granted.'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      result = await stamp('rotated');
    }
    expect(result.verify).to.include('Verification: OK');
    await openssl(['ts', '-reply', '-in', f('rotated.tsr'), '-token_out', '-out', f('rotated.tst')]);
    const certs = (await openssl(['pkcs7', '-inform', 'DER', '-in', f('rotated.tst'), '-print_certs'])).stdout;
    expect(certs).to.include(derToPem(rotated.der).trim().split('\n')[1]!);
  });
});
