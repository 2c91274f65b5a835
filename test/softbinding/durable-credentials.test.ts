/**
 * Durable Content Credentials end to end: a file signed through the API and a worker process carries its ISCC
 * fingerprint as a c2pa.soft-binding assertion; a re-encoded, resized, stripped copy is matched back to the
 * original manifest by the public verify endpoint and the C2PA Soft Binding Resolution API; a non-discoverable
 * organisation's files are never returned to the public.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import sharp from 'sharp';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset, readManifestStore } from '../../shared/c2pa/read-asset.js';
import { savePublicVerification } from '../../shared/db/repositories/public-verifications.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, downloadFile, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { openBindingDesk } from '../c2pa/binding-desk.js';
import { noisePng } from '../support/noise-png.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));

describe('durable credentials: soft binding, manifest repository and public verification', function () {
  this.timeout(120_000);
  let api: TestApi;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let worker: RoleProcess;
  let planet: Account;
  let hidden: Account;
  let planetSigned: Buffer;
  let planetManifestId: string;

  async function sign(acc: Account, bytes: Buffer, name: string, title: string) {
    const job = await waitForJob(api.app, acc, await submitSign(api.app, acc, bytes, name, { title, creator: 'Desk' }));
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    return downloadFile(api.app, acc, job.signed_file.download_url);
  }

  /** What platforms do: re-encode at quality 75, resize to 50%, strip all metadata (sharp keeps none by default). */
  async function platformCopy(bytes: Buffer): Promise<Buffer> {
    const { width } = await sharp(bytes).metadata();
    return sharp(bytes).resize(Math.round(width! / 2)).jpeg({ quality: 75 }).toBuffer();
  }

  before(async () => {
    api = await startTestApi({ PUBLIC_RATE_LIMIT: '1000' });
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '2' });
    planet = await registerAccount(api.app, 'Daily Planet');
    hidden = await registerAccount(api.app, 'Quiet Press');
    await request(api.app).patch('/org').set(bearer(hidden.access)).send({ discoverable: false }).expect(200);
    planetSigned = await sign(planet, fixture('photo.jpg'), 'harbour.jpg', 'Harbour');
  });
  after(async () => {
    await worker?.stop();
    await tsa?.close();
    await api?.close();
  });

  it('the signed file reads Trusted and carries the c2pa.soft-binding assertion (io.iscc.v0)', async () => {
    const report = await readAsset(planetSigned, 'image/jpeg', { trustAnchorsPem: derToPem(pki.root.der) });
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.manifest?.assertions).to.include('c2pa.soft-binding');
    planetManifestId = report.active_manifest!;
    const stored = await api.db.knex('soft_bindings').first('alg', 'value', 'discoverable');
    expect(stored).to.deep.include({ alg: 'io.iscc.v0', discoverable: true });
    expect(stored.value).to.match(/^ISCC:EEA/);
  });

  it('a re-encoded, resized, stripped copy: POST /v1/verify without credentials recovers the original manifest, marked as not bound', async () => {
    const copy = await platformCopy(planetSigned);
    const res = await request(api.app).post('/v1/verify').attach('file', copy, 'copy.jpg').expect(200);
    expect(res.body.validation_state).to.equal('none');
    expect(res.body.recovered).to.have.length.greaterThan(0);
    const best = res.body.recovered[0];
    expect(best).to.include({ manifest_id: planetManifestId, recovered_by: 'fingerprint', bound_to_file: false, alg: 'io.iscc.v0' });
    expect(best.note).to.contain('not bound to these bytes');
    expect(best.distance).to.be.at.most(12);
    expect(best.manifest.title).to.equal('Harbour');
    expect(best.signer.subject).to.contain('Daily Planet');
    expect(best.revocation.status).to.equal("good");
    expect(best.signature).to.equal("trusted");
    // Judged under the same trust as verify, the source named.
    expect(best.signer.trust_source).to.equal('service_ca');
    expect(best.anchor.status).to.equal('pending');
    expect(JSON.stringify(res.body)).to.not.contain(planet.orgId);
    // The permalink shows the same result again; nothing but the hash and the result was kept.
    const again = await request(api.app).get(`/v1/verify/${res.body.sha256}`).expect(200);
    expect(again.body.recovered[0].manifest_id).to.equal(planetManifestId);
    expect(again.body.permalink).to.contain(res.body.sha256);
    await request(api.app).get(`/v1/verify/${'0'.repeat(64)}`).expect(404);
    // The thumbnail for the side-by-side view.
    const thumb = await request(api.app).get(new URL(best.thumbnail_url).pathname).expect(200);
    expect(thumb.headers['content-type']).to.equal('image/jpeg');
  });

  it('an unrelated image recovers nothing; a signed file answers with its embedded manifest', async () => {
    const unrelated = await sharp(noisePng(320, 240)).jpeg().toBuffer();
    const none = await request(api.app).post('/v1/verify').attach('file', unrelated, 'noise.jpg').expect(200);
    expect(none.body.validation_state).to.equal('none');
    expect(none.body.recovered).to.deep.equal([]);
    const embedded = await request(api.app).post('/v1/verify').attach('file', planetSigned, 'signed.jpg').expect(200);
    expect(embedded.body.validation_state).to.equal('Trusted');
    expect(embedded.body.recovered).to.deep.equal([]);
    await request(api.app).post('/v1/verify').attach('file', Buffer.from('not an image'), 'x.txt').expect(415);
  });

  it("a non-discoverable organisation's file is never returned publicly, but its own members recover it", async () => {
    const signed = await sign(hidden, fixture('graphic.png'), 'graphic.png', 'Quiet graphic');
    const report = await readAsset(signed, 'image/png', { trustAnchorsPem: derToPem(pki.root.der) });
    const copy = await sharp(signed).jpeg({ quality: 80 }).toBuffer();
    const pub = await request(api.app).post('/v1/verify').attach('file', copy, 'copy.jpg').expect(200);
    expect(pub.body.recovered.map((c: { manifest_id: string }) => c.manifest_id)).to.not.include(report.active_manifest);
    await request(api.app).get(`/v1/manifests/${encodeURIComponent(report.active_manifest!)}`).expect(404);
    const byContent = await request(api.app).post('/v1/matches/byContent').set('Content-Type', 'image/jpeg').send(copy).expect(200);
    expect(byContent.body.matches.map((m: { manifestId: string }) => m.manifestId)).to.not.include(report.active_manifest);
    const own = await request(api.app).post('/v1/media/verify').set(bearer(hidden.access)).attach('file', copy, 'copy.jpg').expect(200);
    expect(own.body.recovered[0].manifest_id).to.equal(report.active_manifest);
    const other = await request(api.app).post('/v1/media/verify').set(bearer(planet.access)).attach('file', copy, 'copy.jpg').expect(200);
    expect(other.body.recovered.map((c: { manifest_id: string }) => c.manifest_id)).to.not.include(report.active_manifest);
  });

  it('the C2PA Soft Binding Resolution API: supported algorithms, byBinding, byContent, and the manifest store by id', async () => {
    const algs = await request(api.app).get('/v1/services/supportedAlgorithms').expect(200);
    expect(algs.body).to.deep.equal({ watermarks: [], fingerprints: [{ alg: 'io.iscc.v0' }] });
    // The assertion's value, as a client reads it from the signed file, is the query value.
    const store = await request(api.app).get(`/v1/manifests/${encodeURIComponent(planetManifestId)}`).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (d: Buffer) => parts.push(d));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    expect(store.headers['content-type']).to.equal('application/c2pa');
    const fromStore = await readManifestStore(store.body as Buffer, { trustAnchorsPem: derToPem(pki.root.der) });
    expect(fromStore.active_manifest).to.equal(planetManifestId);
    expect(fromStore.manifest?.title).to.equal('Harbour');
    const json = await request(api.app).get(`/v1/manifests/${encodeURIComponent(planetManifestId)}`).set('Accept', 'application/json').expect(200);
    expect(json.body.manifest.title).to.equal('Harbour');
    expect(json.body.signer.subject).to.contain('Daily Planet');
    expect(json.body.signer).to.deep.include({ trust_source: 'service_ca', trust_list_version: null });

    const row = await api.db.knex('soft_bindings').first('value');
    const { softBindingValue } = await import('../../shared/softbinding/binding-value.js');
    const value = softBindingValue(row.value);
    const byBinding = await request(api.app).get('/v1/matches/byBinding').query({ alg: 'io.iscc.v0', value }).expect(200);
    expect(byBinding.body.matches[0]).to.deep.equal({ manifestId: planetManifestId, similarityScore: 100 });
    const posted = await request(api.app).post('/v1/matches/byBinding').send({ alg: 'io.iscc.v0', value: row.value }).expect(200);
    expect(posted.body.matches[0].manifestId).to.equal(planetManifestId);
    await request(api.app).get('/v1/matches/byBinding').query({ alg: 'com.example.other', value }).expect(400);
    await request(api.app).get('/v1/matches/byBinding').query({ alg: 'io.iscc.v0', value: '!!' }).expect(400);
    const byContent = await request(api.app).post('/v1/matches/byContent?alg=io.iscc.v0').set('Content-Type', 'image/jpeg').send(await platformCopy(planetSigned)).expect(200);
    expect(byContent.body.matches[0].manifestId).to.equal(planetManifestId);
    await request(api.app).get('/v1/manifests/urn:c2pa:00000000-0000-4000-8000-000000000000').expect(404);
  });

  it("a verification with a sidecar is answered but never kept: a file's permalink shows what the file alone proves", async () => {
    const permalink = async (sha256: string) => (await request(api.app).get(`/v1/verify/${sha256}`)).body as Record<string, unknown> & { validation_state?: string };
    // Daily Planet's signed file, verified alone: its permalink.
    const alone = await request(api.app).post('/v1/verify').attach('file', planetSigned, 'signed.jpg').expect(200);
    expect(alone.body.permalink).to.contain(alone.body.sha256);
    const before = await permalink(alone.body.sha256);
    expect([before.validation_state, (before.manifest as { title: string }).title]).to.deep.equal(['Trusted', 'Harbour']);
    // Anyone holding it sends it with a sidecar of their own: answered from that sidecar, kept nowhere.
    const withForeign = await request(api.app).post('/v1/verify').attach('file', planetSigned, 'signed.jpg').attach('manifest', fixture('c2pa-samples/cloud_manifest.c2pa'), 'x.c2pa').expect(200);
    expect(withForeign.body.manifest_source).to.deep.include({ kind: 'sidecar' });
    expect(withForeign.body.validation_state).to.equal('Invalid');
    expect(withForeign.body.permalink).to.equal(null);
    expect(await permalink(alone.body.sha256)).to.deep.equal(before);

    // An unsigned image, and a prober's sidecar made for exactly its bytes (Valid, under the prober's title).
    const desk = await openBindingDesk({ cn: 'Prober', creator: 'Prober', title: 'prober' });
    try {
      const unsigned = await sharp(noisePng(200, 150)).jpeg().toBuffer();
      const sidecar = Buffer.from(await desk.sidecarFor('image/jpeg', unsigned));
      const probe = () => request(api.app).post('/v1/verify').attach('file', unsigned, 'mine.jpg').attach('manifest', sidecar, 'mine.c2pa').expect(200);
      // Never verified alone: no permalink comes of the sidecar's verdict.
      const first = await probe();
      expect([first.body.validation_state, first.body.manifest.title, first.body.permalink]).to.deep.equal(['Valid', 'prober.jpeg', null]);
      await request(api.app).get(`/v1/verify/${first.body.sha256}`).expect(404);
      // Verified alone, it has one ("none"), which the sidecar's verdict leaves as it is.
      const none = await request(api.app).post('/v1/verify').attach('file', unsigned, 'mine.jpg').expect(200);
      expect(none.body.validation_state).to.equal('none');
      const kept = await permalink(none.body.sha256);
      expect((await probe()).body.validation_state).to.equal('Valid');
      expect(await permalink(none.body.sha256)).to.deep.equal(kept);
      expect(kept.validation_state).to.equal('none');
      expect(JSON.stringify(kept)).to.not.contain('prober');
      // A sidecar's verdict kept before this rule (it carries its manifest_source) is not shown either.
      await savePublicVerification(first.body.sha256, first.body, api.db.knex);
      await request(api.app).get(`/v1/verify/${first.body.sha256}`).expect(404);
      await savePublicVerification(first.body.sha256, none.body, api.db.knex);
    } finally {
      desk.close();
    }
  });

  it('a permalink judges discoverability when it is read: an organisation that turned it off shows no manifest there', async () => {
    const copy = await request(api.app).post('/v1/verify').attach('file', await platformCopy(planetSigned), 'copy.jpg').expect(200);
    expect(copy.body.recovered[0].manifest_id).to.equal(planetManifestId);
    const embedded = await request(api.app).post('/v1/verify').attach('file', planetSigned, 'signed.jpg').expect(200);
    expect(embedded.body.manifest.title).to.equal('Harbour');
    await request(api.app).patch('/org').set(bearer(planet.access)).send({ discoverable: false }).expect(200);
    try {
      const copyLink = await request(api.app).get(`/v1/verify/${copy.body.sha256}`).expect(200);
      expect(copyLink.body.recovered).to.deep.equal([]);
      expect(JSON.stringify(copyLink.body)).to.not.contain('Harbour');
      expect(JSON.stringify(copyLink.body)).to.not.contain('Daily Planet');
      const embeddedLink = await request(api.app).get(`/v1/verify/${embedded.body.sha256}`).expect(404);
      expect(JSON.stringify(embeddedLink.body)).to.not.contain('Harbour');
    } finally {
      await request(api.app).patch('/org').set(bearer(planet.access)).send({ discoverable: true }).expect(200);
    }
    // Discoverable again: both permalinks show the manifest, with the signer's current revocation status.
    const back = await request(api.app).get(`/v1/verify/${copy.body.sha256}`).expect(200);
    expect(back.body.recovered[0].manifest.title).to.equal('Harbour');
    const embeddedBack = await request(api.app).get(`/v1/verify/${embedded.body.sha256}`).expect(200);
    expect(embeddedBack.body.revocation.status).to.equal('good');
  });
});

describe('durable credentials: public endpoints are rate limited', function () {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ PUBLIC_RATE_LIMIT: '3' });
  });
  after(() => api.close());

  it('answers 429 with Retry-After beyond PUBLIC_RATE_LIMIT per minute', async () => {
    for (let i = 0; i < 3; i += 1) await request(api.app).get('/v1/matches/byBinding').query({ alg: 'io.iscc.v0', value: 'ISCC:EEA4GQZQTY6J5DTH' }).expect(200);
    const limited = await request(api.app).post('/v1/verify').attach('file', noisePng(8, 8), 'n.png').expect(429);
    expect(limited.body.error.code).to.equal('rate_limited');
    expect(limited.headers['retry-after']).to.match(/^\d+$/);
  });
});
