/**
 * The OCSP answer stapled in every signature: the delegated responder certificate the scheduler issues and rotates
 * (checked by OpenSSL's client), the answers the ocsp role signs with it, the stapler that fetches them for a
 * signature (the service's own responder, or an external CA's through the outbound guard), and what c2pa-rs, with
 * OCSP fetching off, and the service's verify read from the signed files.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AsnConvert } from '@peculiar/asn1-schema';
import { expect } from 'chai';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { startOcspResponderJob } from '../../scheduler/ocsp-responder-job.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { crJsonOf, readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { stapledOcspOfFile } from '../../shared/c2pa/stapled-ocsp.js';
import { createLogger } from '../../shared/logger.js';
import { ocspStaples } from '../../shared/metrics/metrics.js';
import { issueLeafCertificate } from '../../shared/pki/certificate-templates.js';
import { readCertificate } from '../../shared/pki/certificate.js';
import { buildCsr } from '../../shared/pki/csr.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { checkOcspAnswer } from '../../shared/pki/ocsp-answer.js';
import { ensureOcspResponder } from '../../shared/pki/ocsp-responder.js';
import { OcspStapler } from '../../shared/pki/ocsp-stapler.js';
import { derToPem, pemToDer } from '../../shared/pki/pem.js';
import { PostgresPkiEvents, type PkiNotice } from '../../shared/pki/pki-events.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { rotateLeaf } from '../../shared/pki/rotation.js';
import { loadSigningIdentity, type SigningIdentity } from '../../shared/pki/signing-identity.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import type { Timestamper } from '../../shared/tsa/client.js';
import { fixture } from '../c2pa/helpers.js';
import { parseOcspResponse } from '../ocsp/support.js';
import { freePort } from '../support/api-process.js';
import { loadRubric, unmet } from '../support/asset-rubric.js';
import { until } from '../support/until.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';
import { openssl, startTrust, writePems, type TrustFixture } from './support.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test-ocsp-staple');
const run = promisify(execFile);

/** mss_ocsp_staples_total for one outcome and reason, in this process. */
async function staples(outcome: string, reason: string): Promise<number> {
  const metric = await ocspStaples.get();
  return metric.values.find((v) => v.labels.outcome === outcome && v.labels.reason === reason)?.value ?? 0;
}

/** The serial of the responder certificate embedded in an OCSP answer. */
function embeddedResponderSerial(der: Uint8Array): string {
  const certs = parseOcspResponse(der).basic?.certs ?? [];
  expect(certs, 'embedded certificates').to.have.length(1);
  return readCertificate(new Uint8Array(AsnConvert.serialize(certs[0]!))).facts.serialHex;
}

describe('trust: OCSP answers stapled in signatures', function () {
  let t: TrustFixture;
  let chain: InitPkiResult;
  let events: PostgresPkiEvents;
  let role: OcspRole;
  let timestamper: Timestamper;
  let photo: Uint8Array;
  let rootPem: string;
  let files: Record<string, string>;
  const dir = mkdtempSync(path.join(tmpdir(), 'ocsp-staple-'));

  /** Runs `act`, then waits until the role has heard the `issued`/`revoked` notice it causes and reloaded. */
  async function andHeard<T>(match: (n: PkiNotice) => boolean, act: () => Promise<T>): Promise<T> {
    let heard!: () => void;
    const notice = new Promise<void>((resolve) => (heard = resolve));
    const stop = await events.subscribe((n) => {
      if (match(n)) heard();
    });
    try {
      const result = await act();
      await notice;
      await role.reloads();
      return result;
    } finally {
      stop();
    }
  }

  const sign = (identity: Pick<SigningIdentity, 'key' | 'chainDer'>, ocspResponse: Uint8Array | undefined, title = 'stapled.jpg') =>
    signAsset({
      bytes: photo,
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title, creator: 'Trust Test Org' }, { sourceHasManifest: false }),
      key: identity.key,
      chainDer: identity.chainDer,
      timestamper,
      ocspResponse,
    });

  before(async function () {
    this.timeout(60_000);
    const ocspPort = await freePort();
    // The responder's address is written into every certificate: the stapler asks it there.
    t = await startTrust({ OCSP_PORT: String(ocspPort), OCSP_URL: `http://127.0.0.1:${ocspPort}` });
    chain = await initPki(t.deps);
    events = new PostgresPkiEvents(t.db.knex, t.db.url, logger);
    t.deps.events = events;
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
    timestamper = httpTimestamper({ url: `http://127.0.0.1:${role.tsaPort}`, timeoutMs: 10_000 });
    photo = await fixture('photo.jpg');
    rootPem = derToPem(chain.root.der);
    files = writePems(dir, { root: chain.root, subCa: chain.subCa, leaf: chain.leaf });
  });

  after(async function () {
    await role?.();
    await events?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with the CA key until a delegated responder exists, then with the responder, embedded; OpenSSL verifies both', async function () {
    const ask = () => openssl(['ocsp', '-no_nonce', '-issuer', files.subCa!, '-cert', files.leaf!, '-url', `http://127.0.0.1:${role.ocspPort}/`, '-CAfile', files.root!, '-resp_text'], dir);
    let r = await ask();
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf\.pem: good/);
    expect(r.stdout).not.to.include('OCSP Signing');

    const outcome = await andHeard((n) => n.kind === 'issued' && n.role === 'ocsp', () => ensureOcspResponder(t.deps));
    expect(outcome.issued).to.equal(true);
    expect(outcome.certificate.role).to.equal('ocsp');
    expect(outcome.certificate.issuer_id).to.equal(chain.subCa.id);
    expect(outcome.certificate.key_name).to.equal(t.config.ocspKeyName);

    // The profile, as OpenSSL prints it.
    files.responder = writePems(dir, { responder: outcome.certificate }).responder!;
    const text = await openssl(['x509', '-in', files.responder, '-noout', '-text'], dir);
    expect(text.stdout).to.match(/X509v3 Extended Key Usage: critical\s+OCSP Signing\s*\n/);
    expect(text.stdout).to.include('OCSP No Check');
    expect(text.stdout).to.match(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text.stdout).to.match(/X509v3 Key Usage: critical\s+Digital Signature\s*\n/);
    expect(text.stdout).to.include(`Issuer: ${'C = GB, O = Trust Test Org, CN = Trust Test Org Issuing CA'}`);

    // The cached answer the CA signed is dropped with the reload; the shared store's is signed again.
    r = await ask();
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf\.pem: good/);
    expect(r.stdout).to.include('OCSP Signing');
    expect(r.stdout).to.include('Subject: C=GB, O=Trust Test Org, CN=Trust Test Org OCSP Responder');

    // In force and far from expiry: nothing new.
    expect((await ensureOcspResponder(t.deps)).issued).to.equal(false);
  });

  it("staples the service responder's answer: c2pa-rs with fetching off reads signingCredential.ocsp.notRevoked, verify reports it", async function () {
    this.timeout(60_000);
    const identity = await loadSigningIdentity({ knex: t.db.knex, vault: t.vault });
    const stapler = new OcspStapler({ timeoutMs: 5000, allowPrivate: false, logger });
    const fetchedBefore = await staples('stapled', 'fetched');
    const cachedBefore = await staples('stapled', 'cache');
    const answer = await stapler.staple(identity);
    expect(answer).to.be.instanceOf(Uint8Array);
    const facts = checkOcspAnswer(answer!, identity.chainDer[0]!, identity.chainDer[1]!);
    expect(facts).to.include({ status: 'good', delegated: true, responder: 'CN=Trust Test Org OCSP Responder,O=Trust Test Org,C=GB' });
    // Kept until its nextUpdate: the next signature asks no one.
    expect(Buffer.from((await stapler.staple(identity))!).equals(Buffer.from(answer!))).to.equal(true);
    expect(await staples('stapled', 'fetched')).to.equal(fetchedBefore + 1);
    expect(await staples('stapled', 'cache')).to.equal(cachedBefore + 1);

    const signed = await sign(identity, answer);
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state, report.summary).to.equal('Trusted');
    expect(report.status.success).to.include('signingCredential.ocsp.notRevoked');
    const stapled = await stapledOcspOfFile(signed, report.active_manifest, report.status);
    expect(stapled).to.deep.include({
      status: 'good',
      responder: 'CN=Trust Test Org OCSP Responder,O=Trust Test Org,C=GB',
      verified: true,
      revoked_at: null,
      codes: ['signingCredential.ocsp.notRevoked'],
    });
    expect(stapled!.produced_at).to.equal(facts.producedAt.toISOString());
    expect(stapled!.next_update).to.equal(facts.nextUpdate!.toISOString());
    // The conformance program's rubrics stay clean with the answer in the signature.
    const crJson = JSON.parse((await crJsonOf(signed, 'image/jpeg', { trustAnchorsPem: rootPem })) as string) as unknown;
    for (const rubric of ['asset-rubric-conformance0.2-spec2.4.yml', 'asset-rubric-integrity.yml']) {
      expect(unmet(loadRubric(new URL(`../fixtures/asset-rubrics/${rubric}`, import.meta.url).pathname).evaluate(crJson)), rubric).to.deep.equal([]);
    }

    // The same file unstapled carries no OCSP code and no answer.
    const plain = await sign(identity, undefined);
    const plainReport = await readAsset(plain, 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(plainReport.validation_state).to.equal('Trusted');
    expect([...plainReport.status.success, ...plainReport.status.failure].filter((c) => c.includes('ocsp'))).to.deep.equal([]);
    expect(await stapledOcspOfFile(plain, plainReport.active_manifest, plainReport.status)).to.equal(null);
  });

  it('a new responder certificate signs from its issuance on (rotation before expiry)', async function () {
    const before = await ensureOcspResponder(t.deps);
    // Renewal is due when less than renewWithinMs is left; a window longer than its life makes it due now.
    const rotated = await andHeard((n) => n.kind === 'issued' && n.role === 'ocsp', () => ensureOcspResponder(t.deps, { renewWithinMs: 366 * 86_400_000 }));
    expect(rotated.issued).to.equal(true);
    expect(rotated.certificate.serial).not.to.equal(before.certificate.serial);

    const identity = await loadSigningIdentity({ knex: t.db.knex, vault: t.vault });
    const answer = await new OcspStapler({ timeoutMs: 5000, allowPrivate: false }).staple(identity);
    expect(embeddedResponderSerial(answer!)).to.equal(rotated.certificate.serial);
    const report = await readAsset(await sign(identity, answer), 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.status.success).to.include('signingCredential.ocsp.notRevoked');
    // The older one is still valid (answers it signed stay good until their nextUpdate), just no longer used.
    expect(readCertificate(before.certificate.der).facts.notAfter.getTime()).to.be.greaterThan(Date.now());
  });

  it("a revoked certificate's stapled answer reads revoked in c2pa-rs and in verify", async function () {
    this.timeout(60_000);
    const leaf = await andHeard((n) => n.kind === 'issued' && n.role === 'leaf', () => rotateLeaf(t.deps));
    const identity = await loadSigningIdentity({ knex: t.db.knex, vault: t.vault });
    expect(identity.serial).to.equal(leaf.serial);
    await andHeard((n) => n.kind === 'revoked' && n.serial === leaf.serial, () => revokeCertificate(t.deps as Required<typeof t.deps>, leaf.serial, 'keyCompromise'));

    const answer = await new OcspStapler({ timeoutMs: 5000, allowPrivate: false }).staple(identity);
    expect(checkOcspAnswer(answer!, identity.chainDer[0]!, identity.chainDer[1]!)).to.include({ status: 'revoked', reason: 'keyCompromise' });
    const signed = await sign(identity, answer, 'revoked.jpg');
    const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.status.failure).to.include('signingCredential.ocsp.revoked');
    expect(report.validation_state).to.equal('Invalid');
    const stapled = await stapledOcspOfFile(signed, report.active_manifest, report.status);
    expect(stapled).to.deep.include({ status: 'revoked', revocation_reason: 'keyCompromise', verified: true });
    expect(stapled!.codes).to.include('signingCredential.ocsp.revoked');
    expect(stapled!.revoked_at).to.equal((await leafRevokedAt(leaf.serial)).toISOString());
  });

  async function leafRevokedAt(serial: string): Promise<Date> {
    const row = (await t.db.knex('certificates').where({ serial }).first('revoked_at')) as { revoked_at: Date };
    return row.revoked_at;
  }

  it('signs without an answer when the responder cannot be reached, and counts it', async function () {
    this.timeout(60_000);
    const { subCaKey } = { subCaKey: await t.vault.getKey(chain.subCa.key_name) };
    const key = await t.vault.ensureKey('staple-unreachable');
    // A port nothing listens on: a server that has closed.
    const closed = await freePort();
    const issued = await issueLeafCertificate({
      subject: { commonName: 'Unreachable Responder Leaf', organization: 'Trust Test Org' },
      subjectPublicKeySpki: key.publicKeySpki,
      issuer: { certificateDer: chain.subCa.der, key: subCaKey },
      crlUrl: t.config.crlUrl,
      ocspUrl: `http://127.0.0.1:${closed}`,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    const identity = { key, chainDer: [issued.der, new Uint8Array(chain.subCa.der)] };
    const stapler = new OcspStapler({ timeoutMs: 2000, allowPrivate: false });
    const missingBefore = await staples('missing', 'unreachable');
    expect(await stapler.staple(identity)).to.equal(undefined);
    // Not asked again at once (every signature would wait for it), still counted.
    expect(await stapler.staple(identity)).to.equal(undefined);
    expect(await staples('missing', 'unreachable')).to.equal(missingBefore + 2);

    const report = await readAsset(await sign(identity, undefined, 'unstapled.jpg'), 'image/jpeg', { trustAnchorsPem: rootPem });
    expect(report.validation_state, report.summary).to.equal('Trusted');
    expect(report.status.success.filter((c) => c.includes('ocsp'))).to.deep.equal([]);
  });

  describe("an external CA's responder (OpenSSL's), through the outbound guard", function () {
    let ca: OpensslCa;
    let server: Server;
    let identity: { key: Awaited<ReturnType<TrustFixture['vault']['ensureKey']>>; chainDer: Uint8Array[]; external: true };
    let asked = 0;

    before(async function () {
      this.timeout(60_000);
      ca = makeOpensslCa('Outside');
      // OpenSSL's own responder answers each request from the CA's index (`openssl ocsp -index`), signed by a
      // delegated responder certificate it issued (EKU OCSPSigning, ocsp-nocheck).
      const responder = ca.issueTsa('ocsp', ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=critical,OCSPSigning', 'noCheck=ignored']);
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          asked++;
          const n = asked;
          writeFileSync(path.join(ca.dir, `ocsp-req-${n}.der`), Buffer.concat(chunks));
          run('openssl', ['ocsp', '-index', 'index.txt', '-CA', 'int.pem', '-rsigner', responder.cert, '-rkey', responder.key, '-reqin', `ocsp-req-${n}.der`, '-respout', `ocsp-resp-${n}.der`, '-ndays', '1'], { cwd: ca.dir })
            .then(() => {
              res.writeHead(200, { 'content-type': 'application/ocsp-response' });
              res.end(readFileSync(path.join(ca.dir, `ocsp-resp-${n}.der`)));
            })
            .catch(() => {
              res.writeHead(500);
              res.end();
            });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const key = await t.vault.ensureKey('staple-external');
      const leafPem = ca.issue(await buildCsr(key, { commonName: 'Outside Newsroom', organization: 'Outside Newsroom' }), {
        ownExtensions: [
          'basicConstraints=critical,CA:FALSE',
          'keyUsage=critical,digitalSignature',
          'extendedKeyUsage=emailProtection',
          `authorityInfoAccess=OCSP;URI:http://127.0.0.1:${port}/`,
        ],
      });
      identity = { key, chainDer: [pemToDer(leafPem), pemToDer(ca.intermediatePem)], external: true };
    });

    after(async function () {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      ca?.cleanup();
    });

    it('refuses a responder on a private address unless allowed (development only)', async function () {
      const before = asked;
      expect(await new OcspStapler({ timeoutMs: 5000, allowPrivate: false }).staple(identity)).to.equal(undefined);
      expect(asked).to.equal(before);
    });

    it("staples its answer; a foreign file's stapled answer is read by c2pa-rs and verify alike", async function () {
      this.timeout(60_000);
      const answer = await new OcspStapler({ timeoutMs: 5000, allowPrivate: true }).staple(identity);
      expect(answer).to.be.instanceOf(Uint8Array);
      const facts = checkOcspAnswer(answer!, identity.chainDer[0]!, identity.chainDer[1]!);
      expect(facts).to.include({ status: 'good', delegated: true, responder: 'CN=Outside ocsp,O=Outside CA,C=GB' });

      const signed = await sign(identity, answer, 'outside.jpg');
      const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: [ca.rootPem] });
      expect(report.status.success).to.include('signingCredential.ocsp.notRevoked');
      const stapled = await stapledOcspOfFile(signed, report.active_manifest, report.status);
      expect(stapled).to.deep.include({ status: 'good', responder: 'CN=Outside ocsp,O=Outside CA,C=GB', verified: true });
    });
  });
});

describe('trust: the scheduler keeps a delegated OCSP responder certificate in force', function () {
  let t: TrustFixture;

  before(async function () {
    t = await startTrust();
  });

  after(async function () {
    await t?.close();
  });

  it('waits for the PKI, then issues one under the sub-CA and keeps it while it is far from expiry', async function () {
    const heard: PkiNotice[] = [];
    const events = new PostgresPkiEvents(t.db.knex, t.db.url, logger);
    const stop = await events.subscribe((n) => heard.push(n));
    const job = startOcspResponderJob({ ...t.deps, events }, logger, 3600_000);
    try {
      await job.started;
      expect(await t.db.knex('certificates').where({ role: 'ocsp' }).count('* as n').first()).to.deep.equal({ n: 0 });
      const chain = await initPki(t.deps);
      await job.runNow();
      await job.runNow();
      const rows = (await t.db.knex('certificates').where({ role: 'ocsp' }).select('serial', 'issuer_id', 'key_name', 'not_before', 'not_after')) as { serial: string; issuer_id: string; key_name: string; not_before: Date; not_after: Date }[];
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ issuer_id: chain.subCa.id, key_name: 'ocsp-responder' });
      // OCSP_RESPONDER_VALIDITY_DAYS (30) from its issuance (backdated 5 minutes).
      expect(rows[0]!.not_after.getTime() - rows[0]!.not_before.getTime()).to.equal(30 * 86_400_000 + 5 * 60_000);
      await until('the issued notice', () => heard.some((n) => n.kind === 'issued' && n.role === 'ocsp' && n.serial === rows[0]!.serial));
    } finally {
      await job.stop();
      stop();
      await events.close();
    }
  });
});
