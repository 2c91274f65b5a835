import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { readPins, SHIPPED_TRUST_LISTS_DIR } from '../../shared/trust/lists.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const sample = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/c2pa-samples', name));
const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));

/** POST /v1/verify with the real trust lists: who vouches for a foreign signer, and under which TRUST_LISTS. */
describe('verify: trust lists and the signer\'s trust source', function () {
  let chain: OpensslChain;
  let apis: TestApi[] = [];
  const interimVersion = readPins(SHIPPED_TRUST_LISTS_DIR).lists.interim.version;

  before(async () => {
    chain = await makeOpensslChain({ cn: 'Partner Agency' });
  });
  after(async () => {
    await Promise.all(apis.map((a) => a.close()));
    apis = [];
    rmSync(chain.dir, { recursive: true, force: true });
  });

  const api = async (env: Record<string, string>) => {
    const started = await startTestApi(env, { issuer: false });
    apis.push(started);
    return started;
  };
  const verify = async (a: TestApi, bytes: Uint8Array, name: string) => (await request(a.app).post('/v1/verify').attach('file', Buffer.from(bytes), name).expect(200)).body;

  it("reads Adobe's production signer Trusted through the interim list by default, naming it, and not trusted with TRUST_LISTS=official", async () => {
    const withInterim = await api({});
    for (const file of ['verify.jpeg', 'ocsp.jpg']) {
      const body = await verify(withInterim, sample(file), file);
      expect(body.validation_state, file).to.equal('Trusted');
      expect(body.signer).to.deep.include({ trust_source: 'interim_trust_list', trust_list_version: interimVersion });
      expect(body.revocation.status).to.equal('not_issued_by_service');
      // A C2PA 1.x claim, timestamped by a DigiCert TSA whose root is an interim anchor (c2pa-rs does not check it).
      expect(body.manifest.claim_version, file).to.equal(1);
      expect(body.timestamp, file).to.deep.include({ validated: true, trusted: true, trust_source: 'interim_trust_list' });
    }
    expect((await verify(withInterim, sample('verify.jpeg'), 'verify.jpeg')).signer.subject).to.match(/CN=cai-prod, O=Adobe Inc\./);

    const officialOnly = await api({ TRUST_LISTS: 'official' });
    const body = await verify(officialOnly, sample('verify.jpeg'), 'verify.jpeg');
    expect(body.validation_state).to.equal('Valid');
    expect(body.status.failure).to.include('signingCredential.untrusted');
    expect(body.signer).to.deep.include({ trust_source: null, trust_list_version: null });
    // That TSA is on no list in use: validated, not trusted (c2pa-rs alone reports timeStamp.trusted here).
    expect(body.timestamp).to.deep.include({ validated: true, trusted: false, trust_source: null });
    expect(body.timestamp.codes).to.include('timeStamp.trusted');
  });

  it("names the operator's anchors (TRUST_ANCHORS_FILE) for a file signed under them, and no source without them", async () => {
    const signed = await signAsset({
      bytes: new Uint8Array(photo()),
      mimeType: 'image/jpeg',
      manifest: buildManifestDefinition({ title: 'partner.jpg', creator: 'Partner' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
    });
    const withOperator = await api({ TRUST_ANCHORS_FILE: chain.files.root });
    const trusted = await verify(withOperator, signed, 'partner.jpg');
    expect(trusted.validation_state).to.equal('Trusted');
    expect(trusted.signer).to.deep.include({ trust_source: 'operator_anchor', trust_list_version: null });

    const without = await verify(apis[0]!, signed, 'partner.jpg');
    expect(without.validation_state).to.equal('Valid');
    expect(without.signer.trust_source).to.equal(null);
  });
});
