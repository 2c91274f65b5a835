/**
 * An organisation's own trust anchors (/org/trust-anchors): a partner agency's CA, made by OpenSSL, signs a file;
 * with organisation A's anchor, A's members read it Trusted through `organisation_anchor`, while organisation B and
 * the public endpoint read it not trusted. Each organisation sees and deletes only its own anchors.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { addOrgUser, bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));
const openssl = (args: string[], cwd?: string) => execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed CA certificate valid only in 2020, made with `openssl ca` (openssl req cannot backdate). */
function expiredCaPem(dir: string): string {
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '01\n');
  writeFileSync(
    path.join(dir, 'ca.cnf'),
    ['[ca]', 'default_ca = d', '[d]', 'database = index.txt', 'new_certs_dir = .', 'serial = serial', 'default_md = sha256', 'policy = p', 'unique_subject = no',
      '[p]', 'commonName = supplied', '[ext]', 'basicConstraints = critical,CA:TRUE', 'keyUsage = critical,keyCertSign,cRLSign', ''].join('\n'),
  );
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'old.key', '-subj', '/CN=Old Partner CA', '-out', 'old.csr'], dir);
  openssl(['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'old.key', '-in', 'old.csr', '-startdate', '20200101000000Z', '-enddate', '20210101000000Z', '-extensions', 'ext', '-notext', '-out', 'old.pem'], dir);
  return readFileSync(path.join(dir, 'old.pem'), 'utf8');
}

describe('organisation trust anchors: a partner CA trusted by one organisation only', function () {
  this.timeout(60_000);
  let api: TestApi;
  let partner: OpensslChain;
  let scratch: string;
  let signed: Buffer;
  let orgA: Account;
  let orgB: Account;
  let viewerA: { access: string };
  let anchorId: string;

  before(async () => {
    partner = await makeOpensslChain({ cn: 'Partner Agency' });
    scratch = mkdtempSync(path.join(tmpdir(), 'org-anchors-'));
    api = await startTestApi({ PUBLIC_RATE_LIMIT: '1000' }, { issuer: false });
    orgA = await registerAccount(api.app, 'Newsroom A');
    orgB = await registerAccount(api.app, 'Newsroom B');
    viewerA = await addOrgUser(api.app, orgA, 'viewer');
    signed = Buffer.from(
      await signAsset({
        bytes: new Uint8Array(photo()),
        mimeType: 'image/jpeg',
        manifest: buildManifestDefinition({ title: 'partner.jpg', creator: 'Partner Agency' }, { sourceHasManifest: false }),
        key: partner.keys.leaf,
        chainDer: [partner.der.leaf, partner.der.subCa],
      }),
    );
  });
  after(async () => {
    await api?.close();
    rmSync(partner.dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  const add = (acc: { access: string }, body: Record<string, unknown>) => request(api.app).post('/org/trust-anchors').set(bearer(acc.access)).send(body);
  const signedInVerify = async (acc: { access: string }) => (await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'partner.jpg').expect(200)).body;
  const publicVerify = async () => (await request(api.app).post('/v1/verify').attach('file', signed, 'partner.jpg').expect(200)).body;

  it('refuses what is not one current CA certificate, each with its own 422 code, and non-admins', async () => {
    const refusal = async (body: Record<string, unknown>, status: number, code: string) => {
      const res = await add(orgA, body).expect(status);
      expect(res.body.error.code, JSON.stringify(res.body)).to.equal(code);
    };
    await refusal({ pem: 'hello' }, 422, 'certificate_unreadable');
    await refusal({ pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }, 422, 'certificate_unreadable');
    await refusal({ pem: partner.pem.leaf }, 422, 'not_a_ca_certificate');
    await refusal({ pem: `${partner.pem.root}${partner.pem.subCa}` }, 422, 'one_certificate_expected');
    await refusal({ pem: expiredCaPem(scratch) }, 422, 'certificate_expired');
    await refusal({}, 400, 'validation_error');
    await refusal({ pem: partner.pem.root, label: '' }, 400, 'validation_error');
    const viewer = await add(viewerA, { pem: partner.pem.root }).expect(403);
    expect(viewer.body.error.code).to.equal('forbidden');
    expect((await request(api.app).get('/org/trust-anchors').set(bearer(orgA.access)).expect(200)).body.trust_anchors).to.deep.equal([]);
  });

  it('adds the partner CA and lists it as OpenSSL describes it; the same certificate twice is 409', async () => {
    const res = await add(orgA, { pem: partner.pem.root, label: 'Partner Agency root' }).expect(201);
    anchorId = res.body.anchor_id;
    const fingerprint = openssl(['x509', '-in', partner.files.root, '-noout', '-fingerprint', '-sha256']).split('=')[1]!.trim().replaceAll(':', '').toLowerCase();
    const notAfter = new Date(openssl(['x509', '-in', partner.files.root, '-noout', '-enddate']).split('=')[1]!.trim()).toISOString();
    const listed = (await request(api.app).get('/org/trust-anchors').set(bearer(orgA.access)).expect(200)).body.trust_anchors;
    expect(listed).to.have.length(1);
    expect(listed[0]).to.deep.include({ anchor_id: anchorId, label: 'Partner Agency root', fingerprint_sha256: fingerprint, not_after: notAfter, added_by: orgA.userId });
    expect(listed[0].subject).to.contain('CN=Partner Agency Root CA');
    expect(Date.parse(listed[0].added_at)).to.be.a('number').and.not.NaN;
    const twice = await add(orgA, { pem: partner.pem.root }).expect(409);
    expect(twice.body.error.code).to.equal('trust_anchor_exists');
  });

  it("A's members read the partner's file Trusted through organisation_anchor; B and the public endpoint do not", async () => {
    for (const acc of [orgA, viewerA]) {
      const body = await signedInVerify(acc);
      expect(body.validation_state, JSON.stringify(body.status)).to.equal('Trusted');
      expect(body.signer).to.deep.include({ trust_source: 'organisation_anchor', trust_list_version: null });
      expect(body.revocation.status).to.equal('not_issued_by_service');
    }
    const other = await signedInVerify(orgB);
    expect(other.validation_state).to.equal('Valid');
    expect(other.status.failure).to.include('signingCredential.untrusted');
    expect(other.signer.trust_source).to.equal(null);
    const pub = await publicVerify();
    expect(pub.validation_state).to.equal('Valid');
    expect(pub.signer.trust_source).to.equal(null);
    // The public permalink keeps the public verdict, never A's.
    expect((await request(api.app).get(`/v1/verify/${pub.sha256}`).expect(200)).body.validation_state).to.equal('Valid');
  });

  it("B neither sees nor deletes A's anchor; A deletes it and the partner's file is no longer trusted", async () => {
    expect((await request(api.app).get('/org/trust-anchors').set(bearer(orgB.access)).expect(200)).body.trust_anchors).to.deep.equal([]);
    const refused = await request(api.app).delete(`/org/trust-anchors/${anchorId}`).set(bearer(orgB.access)).expect(404);
    expect(refused.body.error.code).to.equal('not_found');
    await request(api.app).delete(`/org/trust-anchors/${anchorId}`).set(bearer(viewerA.access)).expect(403);
    await request(api.app).delete('/org/trust-anchors/not-a-uuid').set(bearer(orgA.access)).expect(400);
    expect((await request(api.app).get('/org/trust-anchors').set(bearer(orgA.access)).expect(200)).body.trust_anchors).to.have.length(1);

    // B may trust the same CA for itself: anchors are per organisation.
    const bAnchor = (await add(orgB, { pem: partner.pem.root }).expect(201)).body.anchor_id;
    expect((await signedInVerify(orgB)).signer.trust_source).to.equal('organisation_anchor');
    await request(api.app).delete(`/org/trust-anchors/${bAnchor}`).set(bearer(orgB.access)).expect(204);

    await request(api.app).delete(`/org/trust-anchors/${anchorId}`).set(bearer(orgA.access)).expect(204);
    await request(api.app).delete(`/org/trust-anchors/${anchorId}`).set(bearer(orgA.access)).expect(404);
    const after = await signedInVerify(orgA);
    expect(after.validation_state).to.equal('Valid');
    expect(after.signer.trust_source).to.equal(null);
  });
});
