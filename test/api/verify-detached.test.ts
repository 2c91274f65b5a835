import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { loadConfig } from '../../shared/config.js';
import { startTestApi, registerAccount, bearer, type TestApi } from '../support/api.js';
import { localHttpsServer, type LocalHttpsServer } from '../support/https-server.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const sample = (name: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/c2pa-samples', name));
const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));

/** crJSON, but for the moment c2pa-rs read it (validationTime), which differs from one read to the next. */
const withoutValidationTime = (json: string): unknown => JSON.parse(json, (key, value: unknown) => (key === 'validationTime' ? undefined : value));

/** A JPEG whose manifest is remote (no_embed, the URL in its XMP), and that manifest store, signed under `chain`. */
async function remoteManifestFile(chain: OpensslChain, url: string): Promise<{ asset: Uint8Array; manifest: Uint8Array }> {
  const { WasmBuilder } = c2paWasm();
  const definition = buildManifestDefinition({ title: 'remote.jpg', creator: 'Remote' }, { sourceHasManifest: false });
  const { thumbnail: _none, ...rest } = definition;
  const builder = WasmBuilder.fromJson(JSON.stringify({ ...rest, format: 'image/jpeg' }), JSON.stringify({ verify: { verify_after_sign: false, remote_manifest_fetch: false } }));
  try {
    builder.setNoEmbed(true);
    builder.setRemoteUrl(url);
    const signer = coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
    return (await builder.signAndGetManifestBytes(signer, [], 'image/jpeg', new BytesBlob(new Uint8Array(photo()), 'image/jpeg'))) as { asset: Uint8Array; manifest: Uint8Array };
  } finally {
    builder.free();
  }
}

describe('verify: verdicts, not errors (unsupported algorithm, sidecars, remote manifests)', function () {
  let chain: OpensslChain;
  let dir: string;
  let local: LocalHttpsServer;
  let remote: { asset: Uint8Array; manifest: Uint8Array };
  const apis: TestApi[] = [];
  const api = async (env: Record<string, string> = {}) => {
    const started = await startTestApi({ TRUST_ANCHORS_FILE: chain.files.root, ...env }, { issuer: false });
    apis.push(started);
    return started;
  };

  before(async () => {
    chain = await makeOpensslChain({ cn: 'Remote Publisher' });
    dir = mkdtempSync(path.join(tmpdir(), 'remote-manifest-'));
    local = await localHttpsServer(dir);
    remote = await remoteManifestFile(chain, `https://127.0.0.1:${local.port}/manifests/remote.c2pa`);
    local.body.bytes = remote.manifest;
  });
  after(async () => {
    await Promise.all(apis.map((a) => a.close()));
    local.server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(chain.dir, { recursive: true, force: true });
  });

  it('no_alg.jpg: a 200 Invalid with algorithm.unsupported on both endpoints', async () => {
    const a = await api();
    const pub = (await request(a.app).post('/v1/verify').attach('file', sample('no_alg.jpg'), 'no_alg.jpg').expect(200)).body;
    expect(pub.validation_state).to.equal('Invalid');
    expect(pub.status.failure).to.include('algorithm.unsupported');
    expect(pub.summary).to.match(/algorithm\.unsupported/);
    const acc = await registerAccount(a.app, 'Newsroom');
    const own = (await request(a.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', sample('no_alg.jpg'), 'no_alg.jpg').expect(200)).body;
    expect(own.validation_state).to.equal('Invalid');
    expect(own.failures[0]).to.deep.include({ code: 'algorithm.unsupported', in: 'manifest' });
  });

  it('a .c2pa sidecar alone is its report; with its asset its data hash is checked against the asset', async () => {
    const a = await api();
    const alone = (await request(a.app).post('/v1/verify').attach('file', sample('cloud_manifest.c2pa'), 'cloud_manifest.c2pa').expect(200)).body;
    expect(alone.mime_type).to.equal('application/c2pa');
    expect(alone.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: false });
    expect(alone.manifest.title).to.be.a('string');
    expect(alone.signer.subject).to.be.a('string');
    // A store sent alone is a file of its own: what it proves is kept under its own hash.
    expect(alone.permalink).to.contain(alone.sha256);

    const withAsset = (await request(a.app).post('/v1/verify').attach('file', sample('cloud.jpg'), 'cloud.jpg').attach('manifest', sample('cloud_manifest.c2pa'), 'cloud_manifest.c2pa').expect(200)).body;
    expect(withAsset.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: true });
    expect(withAsset.status.success).to.include('assertion.dataHash.match');
    expect(withAsset.validation_state).to.equal('Valid'); // a 2020 Adobe test signer, on no list in use
    expect(withAsset.status.failure).to.deep.equal(['signingCredential.untrusted']);
    expect(withAsset.failures).to.deep.include({ code: 'signingCredential.untrusted', explanation: 'signing certificate untrusted', in: 'manifest', ingredient: null, url: `self#jumbf=/c2pa/${withAsset.active_manifest}/c2pa.signature` });
    expect(withAsset.summary).to.match(/^Valid/);
    expect(withAsset.permalink).to.equal(null);

    // The same store with another file: its binding fails.
    const wrong = (await request(a.app).post('/v1/verify').attach('file', photo(), 'photo.jpg').attach('manifest', sample('cloud_manifest.c2pa'), 'x.c2pa').expect(200)).body;
    expect(wrong.validation_state).to.equal('Invalid');
    expect(wrong.status.failure).to.include('assertion.dataHash.mismatch');

    const notStore = await request(a.app).post('/v1/verify').attach('file', photo(), 'photo.jpg').attach('manifest', photo(), 'x.c2pa').expect(415);
    expect(notStore.body.error.code).to.equal('not_a_manifest_store');
  });

  it('fetches a remote manifest from a local HTTPS server under the test-only setting and verifies it with the file', async () => {
    const a = await api({ REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile });
    const before = local.requests.length;
    const body = (await request(a.app).post('/v1/verify').attach('file', Buffer.from(remote.asset), 'remote.jpg').expect(200)).body;
    expect(local.requests.length).to.equal(before + 1);
    expect(body.manifest_source).to.deep.include({ kind: 'remote', url: `https://127.0.0.1:${local.port}/manifests/remote.c2pa`, asset_checked: true });
    expect(body.validation_state).to.equal('Trusted');
    expect(body.status.success).to.include('assertion.dataHash.match');
    expect(body.signer).to.deep.include({ trust_source: 'operator_anchor' });
    expect(body.manifest.title).to.equal('remote.jpg');
    // Whoever serves the URL decides that verdict: it is answered, not kept under the file's hash.
    expect(body.permalink).to.equal(null);
    await request(a.app).get(`/v1/verify/${body.sha256}`).expect(404);
  });

  it('keeps a fetched manifest, shares a fetch in flight, refuses beyond REMOTE_MANIFESTS_CONCURRENCY with 503, and bounds its size', async () => {
    const a = await api({ REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile, REMOTE_MANIFESTS_CONCURRENCY: '1', PUBLIC_RATE_LIMIT: '1000', PUBLIC_CONCURRENCY_PER_ADDRESS: '10' });
    const other = await remoteManifestFile(chain, `https://127.0.0.1:${local.port}/manifests/other.c2pa`);
    const verify = (asset: Uint8Array) => request(a.app).post('/v1/verify').attach('file', Buffer.from(asset), 'remote.jpg');
    const before = local.requests.length;
    let open = () => {};
    local.gate.open = new Promise<void>((resolve) => (open = resolve));
    try {
      const first = verify(remote.asset).then((r) => r);
      while (local.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
      const second = verify(remote.asset).then((r) => r);
      const busy = await verify(other.asset).expect(503);
      expect(busy.body.error.code).to.equal('remote_fetch_busy');
      expect(busy.headers['retry-after']).to.equal('2');
      open();
      for (const res of await Promise.all([first, second])) {
        expect(res.status).to.equal(200);
        expect(res.body.validation_state).to.equal('Trusted');
      }
    } finally {
      open();
      local.gate.open = Promise.resolve();
    }
    expect(local.requests.length, 'two verifications, one fetch').to.equal(before + 1);
    expect((await verify(remote.asset).expect(200)).body.validation_state).to.equal('Trusted');
    expect(local.requests.length, 'kept: not fetched again').to.equal(before + 1);

    const small = await api({ REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile, REMOTE_MANIFESTS_MAX_BYTES: '1024' });
    const body = (await request(small.app).post('/v1/verify').attach('file', Buffer.from(remote.asset), 'remote.jpg').expect(200)).body;
    expect(body.status.failure).to.deep.equal(['manifest.inaccessible']);
    expect(body.manifest_source.error).to.match(/1024/);
  });

  it('counts the requests a fetch makes against the client address (REMOTE_MANIFESTS_PER_ADDRESS): beyond, 429 with Retry-After; another address is not held back', async () => {
    const a = await api({ REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile, REMOTE_MANIFESTS_CACHE_SECONDS: '0', REMOTE_MANIFESTS_PER_ADDRESS: '2', TRUST_PROXY_HOPS: '1', PUBLIC_RATE_LIMIT: '1000' });
    const from = (address: string) => request(a.app).post('/v1/verify').set('X-Forwarded-For', address).attach('file', Buffer.from(remote.asset), 'remote.jpg');
    const before = local.requests.length;
    for (let i = 0; i < 2; i++) expect((await from('198.51.100.1').expect(200)).body.validation_state).to.equal('Trusted');
    const refused = await from('198.51.100.1').expect(429);
    expect(refused.body.error.code).to.equal('remote_fetch_rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect(local.requests.length, 'the refused one made no request').to.equal(before + 2);
    expect((await from('198.51.100.2').expect(200)).body.validation_state).to.equal('Trusted');
    // Signed in, the same allowance per address.
    const acc = await registerAccount(a.app, 'Remote');
    const own = await request(a.app).post('/v1/media/verify').set(bearer(acc.access)).set('X-Forwarded-For', '198.51.100.1').attach('file', Buffer.from(remote.asset), 'remote.jpg').expect(429);
    expect(own.body.error.code).to.equal('remote_fetch_rate_limited');
  });

  it('with the guard on, a private address is refused: a 200 verdict saying the manifest could not be fetched', async () => {
    const a = await api({ REMOTE_MANIFESTS_CA_FILE: local.caFile });
    const before = local.requests.length;
    const body = (await request(a.app).post('/v1/verify').attach('file', Buffer.from(remote.asset), 'remote.jpg').expect(200)).body;
    expect(local.requests.length).to.equal(before);
    expect(body.validation_state).to.equal('Invalid');
    expect(body.status.failure).to.deep.equal(['manifest.inaccessible']);
    expect(body.manifest_source.error).to.match(/not a public address/);
  });

  it('REMOTE_MANIFESTS=off: the inaccessible verdict, and no request is made', async () => {
    const a = await api({ REMOTE_MANIFESTS: 'off', REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile });
    const before = local.requests.length;
    for (const file of [Buffer.from(remote.asset), sample('cloud.jpg')]) {
      const body = (await request(a.app).post('/v1/verify').attach('file', file, 'remote.jpg').expect(200)).body;
      expect(body.validation_state).to.equal('Invalid');
      expect(body.status.failure).to.deep.equal(['manifest.inaccessible']);
      expect(body.manifest_source).to.deep.include({ kind: 'remote', asset_checked: false });
      expect(body.manifest_source.error).to.match(/REMOTE_MANIFESTS=off/);
    }
    expect(local.requests.length).to.equal(before);
  });

  it('refuses REMOTE_MANIFESTS_ALLOW_PRIVATE in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(64), REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true' })).to.throw(/REMOTE_MANIFESTS_ALLOW_PRIVATE/);
  });

  it('?format=crjson: c2pa-rs\'s crJSON under the same trust settings, unchanged, on both endpoints', async () => {
    const a = await api();
    const file = sample('verify.jpeg');
    const res = await request(a.app).post('/v1/verify?format=crjson').attach('file', file, 'verify.jpeg').expect(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    // The same read as c2pa-rs's own, with the anchors verification uses (the service's roots, the lists, the operator's).
    const { verificationTrust, trustAnchorsPem } = await import('../../api/media/verification-trust.js');
    const { processTrustStore } = await import('../../shared/trust/store.js');
    const { trustSettings } = await import('../../shared/c2pa/settings.js');
    const trust = verificationTrust(await trustAnchorsPem(a.db.knex), processTrustStore(a.config)).all;
    const reader = await c2paWasm().WasmReader.fromBytes('image/jpeg', new Uint8Array(file), trustSettings(trust));
    const expected = reader.crJson();
    reader.free();
    expect(withoutValidationTime(res.text)).to.deep.equal(withoutValidationTime(expected));
    expect(JSON.parse(res.text).manifests).to.be.an('array').that.is.not.empty;

    const acc = await registerAccount(a.app, 'Wire');
    const own = await request(a.app).post('/v1/media/verify?format=crjson').set(bearer(acc.access)).attach('file', file, 'verify.jpeg').expect(200);
    expect(withoutValidationTime(own.text)).to.deep.equal(withoutValidationTime(expected));

    const none = await request(a.app).post('/v1/verify?format=crjson').attach('file', photo(), 'photo.jpg').expect(422);
    expect(none.body.error.code).to.equal('no_credentials');
    await request(a.app).post('/v1/verify?format=xml').attach('file', file, 'verify.jpeg').expect(400);
  });
});
