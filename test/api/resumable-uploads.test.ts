import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { expect } from 'chai';
import request from 'supertest';
import * as tus from 'tus-js-client';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { sweepExpiredUploads } from '../../scheduler/upload-sweep-job.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { createResumableStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, waitForJob, type Account, type TestApi } from '../support/api.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { startCuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { noisePng } from '../support/noise-png.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const TUS = { 'Tus-Resumable': '1.0.0' };

interface Uploaded {
  url: string;
  body: Record<string, unknown>;
  progress: number[];
}

/** Uploads `bytes` with tus-js-client, retrying quickly after a failure; resolves with the session URL and the last answer's JSON. */
function tusUpload(endpoint: string, bytes: Buffer, headers: Record<string, string>, options: { chunkSize?: number; filename?: string } = {}): Promise<Uploaded> {
  const progress: number[] = [];
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(bytes, {
      endpoint,
      headers,
      chunkSize: options.chunkSize ?? Infinity,
      retryDelays: [50, 100, 200, 400],
      metadata: { filename: options.filename ?? 'upload.png', filetype: 'image/png' },
      onProgress: (sent) => progress.push(sent),
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, body: JSON.parse(lastResponse.getBody() || '{}') as Record<string, unknown>, progress }),
      onError: reject,
    });
    upload.start();
  });
}

/** The session id at the end of a session URL. */
const idOf = (url: string) => url.split('/').pop()!;

for (const storage of ['local', 'azure-blob'] as const) {
  describe(`resumable uploads (tus) with ${storage === 'local' ? 'DATA_DIR files (@tus/file-store)' : 'Blob Storage append blobs on Azurite (@tus/azure-store)'}`, function () {
    this.timeout(120_000);
    let azurite: Azurite | undefined;
    let container: ContainerClient | undefined;
    let api: TestApi;
    let server: http.Server;
    let proxy: CuttingProxy;
    let base: string;
    let acc: Account;
    let other: Account;
    let tsa: TsaService;
    let worker: RoleProcess | undefined;
    let env: Record<string, string> = {};

    /** What the store holds for sessions: files in DATA_DIR/resumable, or blobs under resumable/. */
    const storedSessionBytes = async (): Promise<string[]> => {
      if (container) {
        const names: string[] = [];
        for await (const blob of container.listBlobsFlat({ prefix: 'resumable/' })) names.push(blob.name);
        return names;
      }
      const dir = path.join(api.config.dataDir, 'resumable');
      return existsSync(dir) ? readdirSync(dir) : [];
    };

    /** Files in the file store under uploads/, and this API's staging directory: what a refused completion must not leave. */
    const storedUploads = async (): Promise<string[]> => {
      if (container) {
        const names: string[] = [];
        for await (const blob of container.listBlobsFlat({ prefix: 'uploads/' })) names.push(blob.name);
        return names.sort();
      }
      const dir = path.join(api.config.dataDir, 'files/uploads');
      return existsSync(dir) ? (readdirSync(dir, { recursive: true }) as string[]).sort() : [];
    };
    const staged = () => (existsSync(path.join(api.config.dataDir, 'tmp')) ? readdirSync(path.join(api.config.dataDir, 'tmp')) : []);

    const endpoint = () => `${base}/v1/media/resumable-uploads`;
    const auth = (a: Account) => ({ Authorization: `Bearer ${a.access}` });

    before(async () => {
      if (storage === 'azure-blob') {
        azurite = await startAzurite();
        const containerName = `tus-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
        container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(containerName);
        env = { AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString, BLOB_CONTAINER: containerName };
      }
      // Images up to 3 MiB, video up to 8 MiB, audio up to 4 MiB: the largest limit is known at creation, the image limit only at completion.
      api = await startTestApi({ ...env, MAX_UPLOAD_BYTES: String(3 * 1024 * 1024), MAX_UPLOAD_BYTES_VIDEO: String(8 * 1024 * 1024), MAX_UPLOAD_BYTES_AUDIO: String(4 * 1024 * 1024), SIGN_ATTEMPTS: '2', SIGN_BACKOFF_MS: '200' });
      const vault = createKeyVault(api.config);
      await initPki({ knex: api.db.knex, vault, config: api.config });
      tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
      server = http.createServer(api.app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      proxy = await startCuttingProxy((server.address() as { port: number }).port);
      base = `http://127.0.0.1:${proxy.port}`;
      acc = await registerAccount(api.app, 'Newsroom');
      other = await registerAccount(api.app, 'Rival');
    });

    after(async () => {
      await worker?.stop();
      await proxy?.close();
      await new Promise((resolve) => server?.close(resolve));
      await tsa?.close();
      await api?.close();
      await azurite?.stop();
    });

    it('resumes after the connection is cut mid-PATCH, and the upload it becomes signs', async () => {
      const png = noisePng(1000, 1000); // about 3 MB: most of a 4 MiB append block, in several PATCHes
      expect(png.length).to.be.greaterThan(2 * 1024 * 1024).and.lessThan(3 * 1024 * 1024 + 1);
      proxy.cutAfter(1_500_000);
      const { url, body, progress } = await tusUpload(endpoint(), png, auth(acc), { chunkSize: 1024 * 1024, filename: 'harbour.png' });
      expect(proxy.cuts).to.equal(1);
      expect(progress.at(-1)).to.equal(png.length);
      expect(body).to.include({ mime_type: 'image/png', size: png.length, filename: 'harbour.png' });
      const row = await api.db.knex('uploads').where({ id: body.upload_id }).first();
      expect(row.org_id).to.equal(acc.orgId);

      // The session says what it became; its bytes are gone from the resumable store.
      const session = await request(api.app).get(new URL(url).pathname).set(bearer(acc.access)).expect(200);
      expect(session.body).to.include({ status: 'completed', offset: png.length, size: png.length });
      expect(session.body.upload.upload_id).to.equal(body.upload_id);
      expect(await storedSessionBytes()).to.deep.equal([]);
      // A client that lost the last answer asks HEAD: everything is in.
      const head = await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } });
      expect(head.status).to.equal(200);
      expect(head.headers.get('upload-offset')).to.equal(String(png.length));

      worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { ...env, WORKER_CONCURRENCY: '1', SIGN_BACKOFF_MS: '200' });
      const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: body.upload_id, manifest: { title: 'Harbour', creator: 'Jane Doe' } }).expect(202);
      const done = await waitForJob(api.app, acc, job.body.job_id);
      expect(done.status, JSON.stringify(done)).to.equal('signed');
      await worker.stop();
      worker = undefined;
    });

    it('refuses a declared size over the largest limit with 413 naming it, and keeps nothing', async () => {
      const res = await fetch(endpoint(), { method: 'POST', headers: { ...TUS, ...auth(acc), 'Upload-Length': String(8 * 1024 * 1024 + 1) } });
      expect(res.status).to.equal(413);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('payload_too_large');
      expect(body.error.message).to.include(String(8 * 1024 * 1024)).and.include('MAX_UPLOAD_BYTES_VIDEO');
      expect(await api.db.knex('upload_sessions').where({ org_id: acc.orgId, status: 'receiving' })).to.deep.equal([]);
    });

    it("applies the recognised kind's limit at completion: 413 naming it, and no upload row, no file, no session", async () => {
      const png = noisePng(1200, 1000); // an image over the 3 MiB image limit, under the 8 MiB video one
      expect(png.length).to.be.greaterThan(3 * 1024 * 1024);
      const uploadsBefore = await api.db.knex('uploads').count<{ count: string }[]>('* as count');
      const filesBefore = await storedUploads();
      const err = (await tusUpload(endpoint(), png, auth(acc)).then(
        () => undefined,
        (e: unknown) => e,
      )) as tus.DetailedError;
      expect(err.originalResponse?.getStatus()).to.equal(413);
      const body = JSON.parse(err.originalResponse!.getBody()) as { error: { message: string } };
      expect(body.error.message).to.include(`image files may be at most ${3 * 1024 * 1024} bytes`);
      expect(await api.db.knex('uploads').count<{ count: string }[]>('* as count')).to.deep.equal(uploadsBefore);
      expect(await storedUploads()).to.deep.equal(filesBefore);
      expect(staged()).to.deep.equal([]);
      expect(await api.db.knex('upload_sessions').where({ status: 'receiving' })).to.deep.equal([]);
      expect(await storedSessionBytes()).to.deep.equal([]);
    });

    it('refuses a file that is not media at completion (415) and keeps nothing', async () => {
      const err = (await tusUpload(endpoint(), Buffer.from('just some text, not an image at all\n'.repeat(100)), auth(acc)).then(
        () => undefined,
        (e: unknown) => e,
      )) as tus.DetailedError;
      expect(err.originalResponse?.getStatus()).to.equal(415);
      expect(await api.db.knex('upload_sessions').where({ org_id: acc.orgId }).whereNot({ status: 'completed' })).to.deep.equal([]);
      expect(await storedSessionBytes()).to.deep.equal([]);
    });

    it('answers 409 to a PATCH at the wrong offset and writes nothing', async () => {
      const created = await fetch(endpoint(), { method: 'POST', headers: { ...TUS, ...auth(acc), 'Upload-Length': '1000' } });
      expect(created.status).to.equal(201);
      expect(new Date(created.headers.get('upload-expires')!).getTime() - Date.now()).to.be.within(23 * 3600_000, 24 * 3600_000 + 60_000);
      const url = new URL(created.headers.get('location')!, endpoint()).href;
      const patch = (offset: number, body: Uint8Array) =>
        fetch(url, { method: 'PATCH', headers: { ...TUS, ...auth(acc), 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(body) });
      const first = await patch(0, new Uint8Array(100).fill(1));
      expect(first.status).to.equal(204);
      expect(first.headers.get('upload-offset')).to.equal('100');
      expect(first.headers.get('upload-expires')).to.be.a('string');
      for (const offset of [0, 50, 200]) {
        const res = await patch(offset, new Uint8Array(100).fill(2));
        expect(res.status, `offset ${offset}`).to.equal(409);
        expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('upload_offset_conflict');
      }
      const head = await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } });
      expect(head.headers.get('upload-offset')).to.equal('100');
      // Terminated: the session and its bytes go.
      expect((await fetch(url, { method: 'DELETE', headers: { ...TUS, ...auth(acc) } })).status).to.equal(204);
      expect((await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } })).status).to.equal(404);
      expect(await storedSessionBytes()).to.deep.equal([]);
    });

    it("answers 404 for another organisation's session, whatever the method", async () => {
      const created = await fetch(endpoint(), { method: 'POST', headers: { ...TUS, ...auth(acc), 'Upload-Length': '1000' } });
      const url = new URL(created.headers.get('location')!, endpoint()).href;
      const theirs = { ...TUS, ...auth(other) };
      expect((await fetch(url, { method: 'HEAD', headers: theirs })).status).to.equal(404);
      const patch = await fetch(url, { method: 'PATCH', headers: { ...theirs, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(10) });
      expect(patch.status).to.equal(404);
      expect((await fetch(url, { method: 'DELETE', headers: theirs })).status).to.equal(404);
      await request(api.app).get(new URL(url).pathname).set(bearer(other.access)).expect(404);
      // Still the owner's, untouched.
      const head = await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } });
      expect(head.status).to.equal(200);
      expect(head.headers.get('upload-offset')).to.equal('0');
      await fetch(url, { method: 'DELETE', headers: { ...TUS, ...auth(acc) } });
    });

    it('answers 404 once a session has expired, and the sweep removes its row and its bytes', async () => {
      const created = await fetch(endpoint(), { method: 'POST', headers: { ...TUS, ...auth(acc), 'Upload-Length': '1000' } });
      const url = new URL(created.headers.get('location')!, endpoint()).href;
      const id = idOf(url);
      const patched = await fetch(url, { method: 'PATCH', headers: { ...TUS, ...auth(acc), 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(300).fill(7) });
      expect(patched.status).to.equal(204);
      expect(await storedSessionBytes()).to.not.deep.equal([]);
      // UPLOAD_EXPIRY_HOURS pass without a byte.
      await api.db.knex('upload_sessions').where({ id }).update({ expires_at: api.db.knex.raw("now() - interval '1 second'") });
      expect((await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } })).status).to.equal(404);
      const res = await fetch(url, { method: 'PATCH', headers: { ...TUS, ...auth(acc), 'Upload-Offset': '300', 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(10) });
      expect(res.status).to.equal(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('upload_expired');

      const removed = await sweepExpiredUploads(api.db.knex, createResumableStore(api.config));
      expect(removed).to.be.greaterThan(0);
      expect(await api.db.knex('upload_sessions').where({ id })).to.deep.equal([]);
      expect(await storedSessionBytes()).to.deep.equal([]);
      expect((await fetch(url, { method: 'HEAD', headers: { ...TUS, ...auth(acc) } })).status).to.equal(404);
    });

    it('refuses an unauthenticated creation and a deferred length', async () => {
      expect((await fetch(endpoint(), { method: 'POST', headers: { ...TUS, 'Upload-Length': '10' } })).status).to.equal(401);
      const deferred = await fetch(endpoint(), { method: 'POST', headers: { ...TUS, ...auth(acc), 'Upload-Defer-Length': '1' } });
      expect(deferred.status).to.equal(400);
    });
  });
}

