import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { linkWithRelation } from '../../shared/net/link-header.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { localHttpsServer, type LocalHttpsServer } from '../support/https-server.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));

/** A JPEG signed with its manifest not embedded (naming `remoteUrl` in its XMP when given), and that manifest store. */
async function detached(chain: OpensslChain, remoteUrl?: string): Promise<{ asset: Uint8Array; manifest: Uint8Array }> {
  const { WasmBuilder } = c2paWasm();
  const definition = buildManifestDefinition({ title: 'linked.jpg', creator: 'Linker' }, { sourceHasManifest: false });
  const builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: 'image/jpeg' }), JSON.stringify({ verify: { verify_after_sign: false, remote_manifest_fetch: false } }));
  try {
    builder.setNoEmbed(true);
    if (remoteUrl) builder.setRemoteUrl(remoteUrl);
    const signer = coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] });
    return (await builder.signAndGetManifestBytes(signer, [], 'image/jpeg', new BytesBlob(new Uint8Array(photo()), 'image/jpeg'))) as { asset: Uint8Array; manifest: Uint8Array };
  } finally {
    builder.free();
  }
}

/** POST /v1/verify {url}: the file fetched through the outbound guard, its manifest found by the Link header first. */
describe('verify: a file named by its URL', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let dir: string;
  let local: LocalHttpsServer;
  /** What the local server answers, by path: a body, its headers. */
  const routes = new Map<string, { status?: number; body: Uint8Array; headers?: Record<string, string> }>();
  const apis: TestApi[] = [];
  const api = async (env: Record<string, string> = {}) => {
    const started = await startTestApi({ TRUST_ANCHORS_FILE: chain.files.root, REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile, ...env }, { issuer: false });
    apis.push(started);
    return started;
  };
  const at = (p: string) => `https://127.0.0.1:${local.port}${p}`;
  const verifyUrl = (a: TestApi, url: string) => request(a.app).post('/v1/verify').send({ url });

  before(async () => {
    chain = await makeOpensslChain({ cn: 'Link Publisher' });
    dir = mkdtempSync(path.join(tmpdir(), 'verify-by-url-'));
    local = await localHttpsServer(dir);
    local.server.removeAllListeners('request');
    local.server.on('request', (req, res) => {
      local.requests.push(req.url ?? '');
      const route = routes.get(req.url ?? '');
      if (!route) return void res.writeHead(404).end();
      res.writeHead(route.status ?? 200, route.headers ?? {}).end(route.body);
    });
    const linked = await detached(chain);
    routes.set('/linked.jpg', { body: linked.asset, headers: { 'content-type': 'image/jpeg', link: '</manifests/linked.c2pa>; rel="c2pa-manifest"' } });
    routes.set('/manifests/linked.c2pa', { body: linked.manifest, headers: { 'content-type': 'application/c2pa' } });
    // Its XMP names a URL that answers 404; the Link header names the real manifest.
    const both = await detached(chain, at('/manifests/gone.c2pa'));
    routes.set('/both.jpg', { body: both.asset, headers: { link: `<https://example.invalid/other>; rel="alternate", <${at('/manifests/both.c2pa')}>; rel="c2pa-manifest"` } });
    routes.set('/manifests/both.c2pa', { body: both.manifest });
    const xmpOnly = await detached(chain, at('/manifests/xmp.c2pa'));
    routes.set('/xmp.jpg', { body: xmpOnly.asset });
    routes.set('/manifests/xmp.c2pa', { body: xmpOnly.manifest });
    routes.set('/plain.jpg', { body: photo() });
    routes.set('/redirect.jpg', { status: 302, body: new Uint8Array(), headers: { location: '/linked.jpg' } });
  });
  after(async () => {
    await Promise.all(apis.map((a) => a.close()));
    local.server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(chain.dir, { recursive: true, force: true });
  });

  it('reads Link: <...>; rel="c2pa-manifest" (RFC 8288 forms)', () => {
    const base = 'https://files.example/a/b.pdf';
    expect(linkWithRelation('</m/1>; rel="c2pa-manifest"', 'c2pa-manifest', base)).to.equal('https://files.example/m/1');
    expect(linkWithRelation('<x>; rel=next, <https://m.example/s.c2pa>; title="a, b"; rel="alternate C2PA-Manifest"', 'c2pa-manifest', base)).to.equal('https://m.example/s.c2pa');
    expect(linkWithRelation('<https://m.example/s.c2pa>; rel="alternate"', 'c2pa-manifest', base)).to.equal(undefined);
    expect(linkWithRelation(undefined, 'c2pa-manifest', base)).to.equal(undefined);
  });

  it("finds the manifest by the response's Link header, before the XMP reference, and reads Trusted", async () => {
    const a = await api();
    const linked = (await verifyUrl(a, at('/linked.jpg')).expect(200)).body;
    expect([linked.validation_state, linked.manifest.title, linked.manifest_source.kind]).to.deep.equal(['Trusted', 'linked.jpg', 'sidecar']);
    expect(linked.status.success).to.include('assertion.dataHash.match');
    expect(linked.fetched).to.deep.equal({ url: at('/linked.jpg'), manifest_link: at('/manifests/linked.c2pa') });
    // Whoever serves the URL decides that verdict: answered, not kept.
    expect(linked.permalink).to.equal(null);

    const before = local.requests.length;
    const both = (await verifyUrl(a, at('/both.jpg')).expect(200)).body;
    expect(both.validation_state).to.equal('Trusted');
    expect(both.fetched.manifest_link).to.equal(at('/manifests/both.c2pa'));
    expect(local.requests.slice(before)).to.deep.equal(['/both.jpg', '/manifests/both.c2pa']);

    // Without a Link header the XMP reference is followed, as for an uploaded file; redirects are followed.
    const xmp = (await verifyUrl(a, at('/xmp.jpg')).expect(200)).body;
    expect([xmp.validation_state, xmp.manifest_source.kind, xmp.fetched.manifest_link]).to.deep.equal(['Trusted', 'remote', null]);
    const moved = (await verifyUrl(a, at('/redirect.jpg')).expect(200)).body;
    expect([moved.validation_state, moved.fetched.url]).to.deep.equal(['Trusted', at('/linked.jpg')]);
    const plain = (await verifyUrl(a, at('/plain.jpg')).expect(200)).body;
    expect(plain.validation_state).to.equal('none');
  });

  it('refuses what the guard refuses, failed fetches and files past MAX_UPLOAD_BYTES (422), and fetches nothing with REMOTE_MANIFESTS=off', async () => {
    const a = await api({ MAX_UPLOAD_BYTES: '10000' });
    const refusal = async (url: unknown) => (await request(a.app).post('/v1/verify').send({ url }).expect((r) => expect(r.status).to.be.oneOf([400, 422]))).body.error.code;
    expect(await refusal(`http://127.0.0.1:${local.port}/linked.jpg`)).to.equal('url_not_allowed');
    expect(await refusal(at('/missing.jpg'))).to.equal('url_fetch_failed');
    expect(await refusal(at('/linked.jpg'))).to.equal('url_fetch_failed'); // the photo (14,799 bytes) is larger than MAX_UPLOAD_BYTES
    expect(await refusal(42)).to.equal('validation_error');
    const guarded = await api({ REMOTE_MANIFESTS_ALLOW_PRIVATE: 'false' });
    expect((await request(guarded.app).post('/v1/verify').send({ url: 'https://169.254.169.254/latest/meta-data' }).expect(422)).body.error.code).to.equal('url_not_allowed');

    const off = await api({ REMOTE_MANIFESTS: 'off' });
    const before = local.requests.length;
    expect((await verifyUrl(off, at('/linked.jpg')).expect(422)).body.error.code).to.equal('url_fetch_disabled');
    expect(local.requests.length).to.equal(before);
  });
});
