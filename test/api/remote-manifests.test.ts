/**
 * Remote manifests (sidecar mode) through the API: a sign request or template asks for manifest_placement "remote";
 * the signed file carries the repository's URL for its manifest (XMP dcterms:provenance) and no store, its download
 * always sends `Link: <that URL>; rel="c2pa-manifest"`, and GET /v1/manifests/{id} serves the store whatever the
 * file's discoverability. Verify finds it by the XMP reference (upload) and by the Link header (POST /v1/verify {url}),
 * through the outbound guard (the service on a local HTTPS port, REMOTE_MANIFESTS_ALLOW_PRIVATE and
 * REMOTE_MANIFESTS_CA_FILE: test settings); with REMOTE_MANIFESTS=off the verdict says the manifest is remote and was
 * not fetched. c2pa-rs itself, fetching the store from the service's repository, reads the file Trusted with the
 * service root.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { RemoteManifests } from '../../api/media/remote-manifest.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { RemoteManifestError } from '../../shared/c2pa/reader-open.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { tinyDocx, tinyPdf } from '../media/document-samples.js';
import { makeSamples } from '../media/samples.js';
import { openSigningCounter } from '../media/signing-desk.js';
import { bearer, bytesBody, downloadFile, startTestApi, waitForJob, type Account, type TestApi } from '../support/api.js';
import { localHttpsServer, type LocalHttpsServer } from '../support/https-server.js';

const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));
const manifestUrlOf = (link: string | undefined) => /^<([^>]+)>; rel="c2pa-manifest"$/.exec(link ?? '')?.[1];

interface Counter {
  api: TestApi;
  acc: Account;
  rootPem: string;
  deps: SignJobDeps;
}

/** Uploads, asks for a signature with `body`'s choices and runs the job; the job's view. */
async function signed(desk: Counter, bytes: Buffer, filename: string, body: Record<string, unknown> = { manifest_placement: 'remote' }) {
  const up = await request(desk.api.app).post('/v1/media/upload').set(bearer(desk.acc.access)).attach('file', bytes, filename).expect(201);
  const sign = await request(desk.api.app)
    .post('/v1/media/sign')
    .set(bearer(desk.acc.access))
    .send({ upload_id: up.body.upload_id, manifest: { title: filename, creator: 'Remote Desk' }, ...body })
    .expect(202);
  await processSignJob(desk.deps, sign.body.job_id, { number: 1, final: true });
  const job = await waitForJob(desk.api.app, desk.acc, sign.body.job_id);
  expect(job.status, JSON.stringify(job.error)).to.equal('signed');
  return job;
}

/** The signed file's download: its bytes and its Link header. */
async function download(desk: Counter, job: { signed_file: { download_url: string } }) {
  const res = await request(desk.api.app).get(new URL(job.signed_file.download_url).pathname).set(bearer(desk.acc.access)).buffer(true).parse(bytesBody).expect(200);
  return { bytes: res.body as Buffer, link: res.headers.link as string | undefined };
}

describe('api: remote manifests, signed, served and verified', function () {
  this.timeout(180_000);
  let dir: string;
  let front: LocalHttpsServer;
  let desk: Counter;
  const extraApis: TestApi[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'remote-manifests-'));
    // The service itself on a local HTTPS port: its BASE_URL is what the files name. Under /front/ it also serves a
    // signed file's download as a front (a CDN, say) would, with the owner's credentials, headers as the API sent them.
    front = await localHttpsServer(dir);
    desk = await openSigningCounter('Remote Desk', dir, {
      BASE_URL: `https://127.0.0.1:${front.port}`,
      REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true',
      REMOTE_MANIFESTS_CA_FILE: front.caFile,
    });
    front.server.removeAllListeners('request');
    front.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      front.requests.push(req.url ?? '');
      const fronted = /^\/front\/([0-9a-f-]+)$/.exec(req.url ?? '');
      if (fronted) {
        req.url = `/v1/media/files/${fronted[1]}`;
        req.headers.authorization = `Bearer ${desk.acc.access}`;
      }
      desk.api.app(req, res);
    });
  });
  after(async () => {
    await Promise.all(extraApis.map((a) => a.close()));
    await desk?.api.close();
    front?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a remote-manifest JPEG: no store in the file, its URL in the XMP and in the Link of its download; the repository serves the store', async () => {
    const job = await signed(desk, photo(), 'harbour.jpg');
    expect(job.manifest_placement).to.equal('remote');
    const { bytes, link } = await download(desk, job);
    const manifestUrl = manifestUrlOf(link);
    expect(manifestUrl).to.match(new RegExp(`^https://127\\.0\\.0\\.1:${front.port}/v1/manifests/urn%3Ac2pa%3A[0-9a-f-]{36}$`));
    // The file carries the URL (XMP dcterms:provenance) and no manifest store: c2pa-rs alone finds only the reference.
    expect(bytes.toString('latin1')).to.match(/dcterms:provenance="[^"]+"/);
    expect(bytes.includes(Buffer.from(manifestUrl!))).to.equal(true);
    const alone = await readAsset(bytes, 'image/jpeg', { trustAnchorsPem: desk.rootPem }).catch((err: unknown) => err);
    expect(alone).to.be.instanceOf(RemoteManifestError);
    expect((alone as RemoteManifestError).url).to.equal(manifestUrl);

    const store = await request(desk.api.app).get(new URL(manifestUrl!).pathname).buffer(true).parse(bytesBody).expect(200);
    expect(store.headers['content-type']).to.equal('application/c2pa');
    expect((store.body as Buffer).length).to.be.greaterThan(1000);
  });

  it('verify of the uploaded file finds the store by its XMP reference (fetched from the service through the outbound guard): Trusted', async () => {
    const job = await signed(desk, tinyPdf({ title: 'Annual report', text: 'Remote' }), 'report.pdf');
    const { bytes, link } = await download(desk, job);
    const fetchesBefore = front.requests.length;
    const verdict = (await request(desk.api.app).post('/v1/verify').attach('file', bytes, 'report.pdf').expect(200)).body;
    expect(verdict.validation_state, verdict.summary).to.equal('Trusted');
    expect(verdict.manifest_source).to.include({ kind: 'remote', url: manifestUrlOf(link) });
    expect(verdict.status.success).to.include('assertion.dataHash.match');
    expect(front.requests.slice(fetchesBefore)).to.deep.equal([new URL(manifestUrlOf(link)!).pathname]);
    // Signed in, the same.
    const own = (await request(desk.api.app).post('/v1/media/verify').set(bearer(desk.acc.access)).attach('file', bytes, 'report.pdf').expect(200)).body;
    expect(own.validation_state, own.summary).to.equal('Trusted');
  });

  it('POST /v1/verify {url} at the service\'s download finds the store by the Link header: Trusted', async () => {
    const job = await signed(desk, photo(), 'linked.jpg');
    const { link } = await download(desk, job);
    const url = `https://127.0.0.1:${front.port}/front/${job.signed_file.file_id}`;
    const verdict = (await request(desk.api.app).post('/v1/verify').send({ url }).expect(200)).body;
    expect(verdict.validation_state, verdict.summary).to.equal('Trusted');
    expect(verdict.manifest_source.kind).to.equal('sidecar');
    expect(verdict.fetched).to.deep.equal({ url, manifest_link: manifestUrlOf(link) });
  });

  it('a remote manifest is served by id and linked even when the file is not discoverable; an embedded one then is not', async () => {
    const remote = await signed(desk, photo(), 'private.jpg', { manifest_placement: 'remote', discoverable: false });
    const { link } = await download(desk, remote);
    expect(manifestUrlOf(link)).to.be.a('string');
    await request(desk.api.app).get(new URL(manifestUrlOf(link)!).pathname).expect(200);
    const embedded = await signed(desk, photo(), 'private-embedded.jpg', { discoverable: false });
    expect(embedded.manifest_placement).to.equal('embedded');
    const plain = await download(desk, embedded);
    expect(plain.link).to.equal(undefined);
    const report = await readAsset(plain.bytes, 'image/jpeg', { trustAnchorsPem: desk.rootPem });
    expect(report.validation_state).to.equal('Trusted');
  });

  it('a template chooses remote; a request may choose embedded over it; the choice is part of the idempotent request', async () => {
    const template = await request(desk.api.app)
      .post('/v1/manifest-templates')
      .set(bearer(desk.acc.access))
      .send({ name: 'Sidecar desk', manifest: { creator: 'Template Desk' }, manifest_placement: 'remote' })
      .expect(201);
    expect(template.body.manifest_placement).to.equal('remote');
    const viaTemplate = await signed(desk, photo(), 'templated.jpg', { template_id: template.body.template_id });
    expect(viaTemplate.manifest_placement).to.equal('remote');
    expect(manifestUrlOf((await download(desk, viaTemplate)).link)).to.be.a('string');
    const overridden = await signed(desk, photo(), 'overridden.jpg', { template_id: template.body.template_id, manifest_placement: 'embedded' });
    expect(overridden.manifest_placement).to.equal('embedded');
    const { bytes } = await download(desk, overridden);
    expect((await readAsset(bytes, 'image/jpeg', { trustAnchorsPem: desk.rootPem })).validation_state).to.equal('Trusted');

    const up = await request(desk.api.app).post('/v1/media/upload').set(bearer(desk.acc.access)).attach('file', photo(), 'again.jpg').expect(201);
    const send = (placement: string) =>
      request(desk.api.app)
        .post('/v1/media/sign')
        .set(bearer(desk.acc.access))
        .set('Idempotency-Key', 'remote-once')
        .send({ upload_id: up.body.upload_id, manifest: { title: 'Again', creator: 'Desk' }, manifest_placement: placement });
    await send('remote').expect(202);
    expect((await send('embedded').expect(409)).body.error.code).to.equal('idempotency_conflict');
    expect((await send('sideways').expect(400)).body.error.message).to.match(/manifest_placement.*embedded, remote/);
  });

  it('refuses a remote manifest for ZIP containers and streamed video and audio (422 remote_manifest_unsupported), queuing nothing', async () => {
    const { dir: samplesDir, samples } = await makeSamples();
    const jobCount = async () => (await request(desk.api.app).get('/v1/media/jobs?limit=100').set(bearer(desk.acc.access)).expect(200)).body.jobs.length as number;
    const jobsBefore = await jobCount();
    try {
      for (const [bytes, name, reason] of [
        [tinyDocx('Minutes'), 'minutes.docx', /collection-hash/],
        [samples['video/mp4'], 'clip.mp4', /signed streamed/],
        [samples['audio/wav'], 'tone.wav', /signed streamed/],
      ] as const) {
        const up = await request(desk.api.app).post('/v1/media/upload').set(bearer(desk.acc.access)).attach('file', bytes, name).expect(201);
        const res = await request(desk.api.app)
          .post('/v1/media/sign')
          .set(bearer(desk.acc.access))
          .send({ upload_id: up.body.upload_id, manifest: { title: name, creator: 'Desk' }, manifest_placement: 'remote' })
          .expect(422);
        expect(res.body.error.code, name).to.equal('remote_manifest_unsupported');
        expect(res.body.error.message, name).to.match(reason);
      }
      expect(await jobCount()).to.equal(jobsBefore);
    } finally {
      rmSync(samplesDir, { recursive: true, force: true });
    }
  });

  it('with REMOTE_MANIFESTS=off the verdict says the manifest is remote and was not fetched (200 Invalid, manifest.inaccessible)', async () => {
    const job = await signed(desk, photo(), 'offline.jpg');
    const { bytes, link } = await download(desk, job);
    const rootFile = path.join(dir, 'root.pem');
    writeFileSync(rootFile, desk.rootPem);
    const off = await startTestApi({ TRUST_ANCHORS_FILE: rootFile, REMOTE_MANIFESTS: 'off' }, { issuer: false });
    extraApis.push(off);
    const fetchesBefore = front.requests.length;
    const verdict = (await request(off.app).post('/v1/verify').attach('file', bytes, 'offline.jpg').expect(200)).body;
    expect(verdict.validation_state).to.equal('Invalid');
    expect(verdict.status.failure).to.deep.equal(['manifest.inaccessible']);
    expect(verdict.manifest_source).to.include({ kind: 'remote', url: manifestUrlOf(link) });
    expect(verdict.failures[0].explanation).to.match(/remote manifest at .* was not fetched: .*REMOTE_MANIFESTS=off/);
    expect(front.requests.length).to.equal(fetchesBefore);
  });
});

describe('c2pa-rs: a remote-manifest file signed by the service, its store fetched from the service', function () {
  this.timeout(120_000);
  let dir: string;
  let server: http.Server;
  let desk: Counter;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'remote-manifests-c2pa-rs-'));
    // c2pa-rs fetches with the runtime's fetch, which trusts no test certificate: the service on plain HTTP here.
    server = http.createServer((req, res) => desk.api.app(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    desk = await openSigningCounter('Remote Desk', dir, { BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  after(async () => {
    await desk?.api.close();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** c2pa-rs's own verdict on a file, fetching its remote manifest itself, with the service root as the only anchor. */
  async function c2paRsState(mimeType: string, bytes: Uint8Array): Promise<string> {
    const settings = { trust: { trust_anchors: desk.rootPem }, verify: { verify_trust: true, remote_manifest_fetch: true, ocsp_fetch: false } };
    const reader = await c2paWasm().WasmReader.fromBytes(mimeType, bytes, JSON.stringify(settings));
    try {
      return (JSON.parse(reader.json()) as { validation_state: string }).validation_state;
    } finally {
      reader.free();
    }
  }

  it('reads Trusted, and Invalid after one byte of the file changes', async () => {
    for (const [bytes, name, mimeType] of [
      [photo(), 'harbour.jpg', 'image/jpeg'],
      [tinyPdf({ title: 'Annual report' }), 'report.pdf', 'application/pdf'],
    ] as const) {
      const job = await signed(desk, bytes, name);
      const file = await downloadFile(desk.api.app, desk.acc, job.signed_file.download_url);
      expect(await c2paRsState(mimeType, file), name).to.equal('Trusted');
      const tampered = Buffer.from(file);
      const at = mimeType === 'image/jpeg' ? tampered.length - 10 : tampered.indexOf('Annual report');
      tampered[at] ^= 0x01;
      expect(await c2paRsState(mimeType, tampered), `${name} changed`).to.equal('Invalid');
    }
  });

  it('the service fetches its own store from BASE_URL over plain http on loopback (development): Trusted; any other origin there is still refused, sent nothing', async () => {
    const job = await signed(desk, photo(), 'own-origin.jpg');
    const { bytes, link } = await download(desk, job);
    const manifestUrl = new URL(manifestUrlOf(link)!);
    expect(manifestUrl.origin).to.equal(desk.api.config.baseUrl);
    const verdict = (await request(desk.api.app).post('/v1/verify').attach('file', bytes, 'own-origin.jpg').expect(200)).body;
    expect(verdict.validation_state, verdict.summary).to.equal('Trusted');
    expect(verdict.manifest_source).to.include({ kind: 'remote', url: manifestUrl.toString() });

    let sent = 0;
    const other = http.createServer((_req, res) => {
      sent += 1;
      res.end('a store');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const otherPort = (other.address() as AddressInfo).port;
      const remote = new RemoteManifests(desk.api.config.remoteManifests).forClient('198.51.100.1');
      expect(await remote.fetch(`http://127.0.0.1:${otherPort}${manifestUrl.pathname}`)).to.deep.equal({ error: 'only https URLs are allowed' });
      expect(await remote.fetch(`https://127.0.0.1:${otherPort}${manifestUrl.pathname}`)).to.deep.equal({ error: '127.0.0.1 is not a public address' });
      // The same server by another name is another origin.
      expect(await remote.fetch(`http://localhost:${manifestUrl.port}${manifestUrl.pathname}`)).to.deep.equal({ error: 'only https URLs are allowed' });
      expect(sent).to.equal(0);
    } finally {
      other.close();
    }
  });
});
