import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { expect } from 'chai';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi, downloadFile, submitSign, waitForJob } from '../support/api.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { noisePng } from '../support/noise-png.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));

/** Every regular file below `dir` (relative paths); none when it does not exist. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)));
}

async function listBlobs(container: ContainerClient, prefix?: string): Promise<string[]> {
  const names: string[] = [];
  for await (const blob of container.listBlobsFlat(prefix ? { prefix } : {})) names.push(blob.name);
  return names.sort();
}

/** Job ids a worker process logged as signed (pino JSON lines, from its sandbox processes). */
function signedJobIds(worker: RoleProcess): Set<string> {
  const ids = new Set<string>();
  for (const line of worker.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; jobId?: string };
      if (entry.msg === 'signed' && entry.jobId) ids.add(entry.jobId);
    } catch {
      // a partial or foreign line
    }
  }
  return ids;
}

describe('files across hosts: API and two workers share only Blob Storage (Azurite), no disk', function () {
  this.timeout(120_000);
  let azurite: Azurite;
  let container: ContainerClient;
  const containerName = `across-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let tsa: TsaService;
  const workers: RoleProcess[] = [];
  const workerDirs: string[] = [];

  const download = async (url: string) => ({ body: await downloadFile(api.app, acc, url) });
  const submit = (bytes: Buffer, filename: string) => submitSign(api.app, acc, bytes, filename);
  const waitDone = (jobId: string) => waitForJob(api.app, acc, jobId);

  before(async () => {
    azurite = await startAzurite();
    container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(containerName);
    const blobEnv = { AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString, BLOB_CONTAINER: containerName };
    api = await startTestApi({ ...blobEnv, SIGN_ATTEMPTS: '3', SIGN_BACKOFF_MS: '200' });
    const vault = createKeyVault(api.config);
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    rootPem = derToPem(pki.root.der);
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    acc = await registerAccount(api.app, 'Newsroom');
    // Two "hosts": each worker has its own empty DATA_DIR. Only the signing keys are copied in: the key vault is
    // a separate service (Azure Key Vault in production); the test's local vault stands in for it.
    for (let i = 0; i < 2; i += 1) {
      const dir = mkdtempSync(path.join(tmpdir(), `worker-host${i}-`));
      workerDirs.push(dir);
      cpSync(path.join(api.config.dataDir, 'vault'), path.join(dir, 'vault'), { recursive: true });
    }
    const started = await Promise.allSettled(
      workerDirs.map((dir) =>
        startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { ...blobEnv, DATA_DIR: dir, WORKER_CONCURRENCY: '1', OPS_PORT: '0', SIGN_BACKOFF_MS: '200' }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') workers.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  });

  after(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await tsa?.close();
    await api?.close();
    await azurite?.stop();
    for (const dir of workerDirs) rmSync(dir, { recursive: true, force: true });
    if (api) rmSync(api.config.dataDir, { recursive: true, force: true });
  });

  it('uploads on the API, signing on either worker and downloads all go through the container', async () => {
    const inputs: Array<[Buffer, string, 'image/jpeg' | 'image/png']> = [
      [fixture('photo.jpg'), 'photo.jpg', 'image/jpeg'],
      [fixture('graphic.png'), 'graphic.png', 'image/png'],
      [fixture('small.jpg'), 'small.jpg', 'image/jpeg'],
      [noisePng(320, 240), 'noise1.png', 'image/png'],
      [fixture('photo.jpg'), 'photo2.jpg', 'image/jpeg'],
      [noisePng(400, 300), 'noise2.png', 'image/png'],
    ];
    const mimeOf = new Map<string, 'image/jpeg' | 'image/png'>();
    const jobIds: string[] = [];
    const run = async (batch: typeof inputs) => {
      // Submitted together, so the queue holds more jobs than one worker (concurrency 1) can take at once.
      const ids = await Promise.all(batch.map(([bytes, name]) => submit(bytes, name)));
      ids.forEach((id, i) => mimeOf.set(id, batch[i]![2]));
      jobIds.push(...ids);
      return Promise.all(ids.map(waitDone));
    };
    const jobs = await run(inputs);
    // Which worker takes which job is up to BullMQ; in the rare case one got none, give them more work.
    for (let round = 0; round < 3 && workers.some((w) => signedJobIds(w).size === 0); round += 1) {
      jobs.push(...(await run(inputs.slice(0, 4).map(([b, n, m]) => [b, `more${round}-${n}`, m] as [Buffer, string, typeof m]))));
    }

    for (const job of jobs) expect(job.status, JSON.stringify(job)).to.equal('signed');
    const [a, b] = workers.map(signedJobIds) as [Set<string>, Set<string>];
    expect(a.size, 'worker 1 signed nothing').to.be.greaterThan(0);
    expect(b.size, 'worker 2 signed nothing').to.be.greaterThan(0);
    expect([...a].filter((id) => b.has(id)), 'a job signed by both').to.deep.equal([]);
    expect(new Set([...a, ...b])).to.deep.equal(new Set(jobIds));

    // The container holds every upload and exactly one signed file per job, under the keys the rows name.
    const uploadRows = await api.db.knex('uploads').where({ org_id: acc.orgId }).select('storage_key');
    const signedRows = await api.db.knex('signed_files').whereIn('job_id', jobIds).select('job_id', 'storage_key', 'sha256');
    expect(signedRows).to.have.length(jobIds.length);
    expect(await listBlobs(container, 'uploads/')).to.deep.equal(uploadRows.map((r) => r.storage_key).sort());
    expect(await listBlobs(container, 'signed/')).to.deep.equal(signedRows.map((r) => r.storage_key).sort());
    expect(await listBlobs(container)).to.have.length(uploadRows.length + signedRows.length);

    // No process kept a file on its own disk.
    for (const dir of [api.config.dataDir, ...workerDirs]) {
      expect(walk(path.join(dir, 'files')), `${dir}/files`).to.deep.equal([]);
      expect(walk(path.join(dir, 'tmp')), `${dir}/tmp`).to.deep.equal([]);
    }

    // What the API serves is what the worker stored, and it is Trusted with only the service root.
    const byJob = new Map(signedRows.map((r) => [r.job_id as string, r]));
    for (const job of jobs) {
      const res = await download(job.signed_file.download_url);
      const served = res.body as Buffer;
      const blob = await container.getBlockBlobClient(byJob.get(job.job_id)!.storage_key).downloadToBuffer();
      expect(served.equals(blob), 'served bytes differ from the blob').to.equal(true);
      const report = await readAsset(served, mimeOf.get(job.job_id)!, { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.manifest?.creator).to.equal('Jane Doe');
    }
  });

  it('refused uploads leave no blob behind and nothing in the API staging directory', async () => {
    const before = await listBlobs(container);
    const text = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', Buffer.from('just some text, not an image\n'), 'notes.png');
    expect(text.status, JSON.stringify(text.body)).to.equal(415);
    const png = noisePng(200, 150);
    const truncated = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', png.subarray(0, Math.floor(png.length / 2)), 'cut.png');
    expect(truncated.status, JSON.stringify(truncated.body)).to.equal(400);
    expect(await listBlobs(container)).to.deep.equal(before);
    expect(walk(path.join(api.config.dataDir, 'tmp'))).to.deep.equal([]);
    expect(walk(path.join(api.config.dataDir, 'files'))).to.deep.equal([]);
  });
});
