import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { orgKeyName } from '../../shared/pki/org-signing.js';
import { derToPem } from '../../shared/pki/pem.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { alive } from '../support/descendants.js';
import { noisePng } from '../support/noise-png.js';
import { isRunning, startTestWorker, type RoleProcess } from '../support/processes.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));

/** The worker's sandbox processes (BullMQ's child main.js; not tsx's esbuild service, which comes and goes). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid), '-f', 'bullmq/dist/cjs/classes/main.js'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('signing pipeline through BullMQ and a separate worker process', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let worker: RoleProcess | undefined;
  /** The service's own TSA (as the ocsp process serves it): every signature the workers make is timestamped. */
  let tsa: TsaService;

  const startWorker = (extra: Record<string, string> = {}) =>
    startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '2', WORKER_LOCK_MS: '4000', SIGN_BACKOFF_MS: '200', ...extra });

  const signThrough = (bytes: Buffer, filename: string, manifest = { title: 'Harbour', creator: 'Jane Doe' }) => submitSign(api.app, acc, bytes, filename, manifest);
  const waitDone = (jobId: string) => waitForJob(api.app, acc, jobId);

  before(async () => {
    api = await startTestApi({ SIGN_ATTEMPTS: '3', SIGN_BACKOFF_MS: '200' });
    const vault = createKeyVault(api.config);
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    rootPem = derToPem(pki.root.der);
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    acc = await registerAccount(api.app, 'Newsroom');
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  after(async () => {
    await tsa?.close();
    await api.close();
  });

  it('signs a JPEG and a PNG that c2pa-rs reads Trusted with only the service root; a flipped byte reads Invalid', async () => {
    worker = await startWorker({ WORKER_CONCURRENCY: '2' });
    // Ready means its sandbox processes are already running (one per job it runs at once), none forked under load.
    expect(childPids(worker.child.pid!)).to.have.length(2);
    for (const [name, mime] of [['photo.jpg', 'image/jpeg'], ['graphic.png', 'image/png']] as const) {
      const job = await waitDone(await signThrough(fixture(name), name));
      expect(job.status, JSON.stringify(job)).to.equal('signed');
      expect(job.signed_file.mime_type).to.equal(mime);
      const file = await request(api.app).get(new URL(job.signed_file.download_url).pathname).set(bearer(acc.access)).buffer(true).parse((res, cb) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => cb(null, Buffer.concat(parts)));
      }).expect(200);
      expect(file.headers['content-type']).to.equal(mime);
      expect(file.headers['content-disposition']).to.contain('-signed.');
      const signed = file.body as Buffer;
      const report = await readAsset(signed, mime, { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.manifest?.title).to.equal('Harbour');
      expect(report.manifest?.creator).to.equal('Jane Doe');
      expect(report.signer?.serial).to.equal(job.signed_file.certificate_serial);
      // Timestamped by the service's TSA, trusted through the same root.
      expect(report.status.success).to.include.members(['timeStamp.validated', 'timeStamp.trusted']);

      const verified = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, name).expect(200);
      expect(verified.body.validation_state).to.equal('Trusted');
      expect(verified.body.revocation.status).to.equal('good');
      expect(verified.body.timestamp).to.include({ validated: true, trusted: true });
      expect(Math.abs(Date.parse(verified.body.timestamp.time) - Date.now())).to.be.lessThan(120_000);

      const tampered = Buffer.from(signed);
      const at = tampered.length - 40; // inside the image data, well after the manifest
      tampered[at] = tampered[at]! ^ 0x01;
      const bad = await readAsset(tampered, mime, { trustAnchorsPem: rootPem });
      expect(bad.validation_state).to.equal('Invalid');
      const badApi = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', tampered, name).expect(200);
      expect(badApi.body.validation_state).to.equal('Invalid');
      expect(badApi.body.status.failure.join(' ')).to.contain('dataHash.mismatch');
    }

    // The worker's operator listener: the jobs ran in its sandbox processes, whose metrics it adds to its own.
    const opsPort = /"msg":"operator listener[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"operator listener/.exec(worker.output());
    expect(opsPort, worker.output()).to.not.equal(null);
    const base = `http://127.0.0.1:${opsPort![1] ?? opsPort![2]}`;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).to.include('mss_sign_jobs_total{outcome="signed",error_code=""} 2');
    expect(metrics).to.include('mss_sign_stage_seconds_count{stage="sign"} 2');
    expect(metrics).to.match(/mss_vault_call_seconds_count\{vault="local",operation="sign",result="ok"\} [2-9]/);
    expect(metrics).to.match(/mss_sign_queue_jobs\{state="failed"\} 0/);
    expect(metrics).to.include('mss_process_resident_memory_bytes');
    const board = await fetch(`${base}/queues`);
    expect(board.status).to.equal(200);
    expect(await board.text()).to.match(/bull/i);
    const queues = (await (await fetch(`${base}/queues/api/queues`)).json()) as { queues: { name: string; counts: Record<string, number> }[] };
    expect(queues.queues.map((q) => q.name)).to.include('sign');
  });

  it('an unsigned file verifies as none; a viewer may verify', async () => {
    const res = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', fixture('photo.jpg'), 'p.jpg').expect(200);
    expect(res.body.validation_state).to.equal('none');
    // A BMP is no format c2pa-rs can carry a manifest in: refused by content.
    const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]);
    expect((await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', bmp, 'x.bmp')).status).to.equal(415);
  });

  it('a worker killed with SIGKILL mid-job loses nothing: another worker finishes it once', async () => {
    const big = noisePng(2400, 1600);
    let caught = false;
    for (let round = 0; round < 3 && !caught; round += 1) {
      worker = await startWorker({ WORKER_CONCURRENCY: '1' });
      const jobId = await signThrough(big, `big${round}.png`);
      // Kill as soon as the job is being processed.
      for (let i = 0; i < 400; i += 1) {
        const row = await api.db.knex('sign_jobs').where({ id: jobId }).first();
        if (row.status === 'processing') break;
        await new Promise((r) => setTimeout(r, 5));
      }
      const sandboxes = childPids(worker.child.pid!);
      await worker.kill();
      worker = undefined;
      // The killed worker's sandbox processes leave with it instead of lingering as orphans.
      expect(sandboxes.length).to.be.greaterThan(0);
      await waitUntil(() => sandboxes.every((pid) => !isRunning(pid)), 10_000);
      const after = await api.db.knex('sign_jobs').where({ id: jobId }).first();
      if (after.status !== 'processing') continue; // finished before the kill: try again
      caught = true;
      worker = await startWorker();
      const job = await waitDone(jobId);
      expect(job.status).to.equal('signed');
      const files = await api.db.knex('signed_files').where({ job_id: jobId });
      expect(files).to.have.length(1);
      const signed = readFileSync(path.join(api.config.dataDir, 'files', files[0].storage_key));
      expect((await readAsset(signed, 'image/png', { trustAnchorsPem: rootPem })).validation_state).to.equal('Trusted');
    }
    expect(caught, 'the job was never caught mid-flight').to.equal(true);
  });

  it('a job whose vault key is missing is retried and then failed with a reason', async () => {
    // The organisation's own key (issued with its registration, generation 1).
    const keyFile = path.join(api.config.dataDir, 'vault', `${orgKeyName(acc.orgId, 1)}.pem`);
    const saved = readFileSync(keyFile);
    rmSync(keyFile);
    try {
      worker = await startWorker();
      const job = await waitDone(await signThrough(fixture('graphic.png'), 'g.png'));
      expect(job.status).to.equal('failed');
      expect(job.attempts).to.equal(3);
      expect(job.error).to.deep.equal({ code: 'vault_key_missing', message: 'the signing key is missing from the key vault' });
      expect(job.signed_file).to.equal(null);
    } finally {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(keyFile, saved, { mode: 0o600 });
    }
  });
});
