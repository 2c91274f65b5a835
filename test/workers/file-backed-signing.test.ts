/**
 * Sign jobs on files of any size: the worker copies the upload out of the store to a temp file (streamed), c2pa-rs
 * reads it through a FileBlob, the signed file is written to a temp file and streamed into the store, and the temp
 * files are gone afterwards whatever happened. Video and audio have upload limits of their own (413 beyond).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { ConfigError, largestUploadLimit, loadConfig, uploadLimitFor } from '../../shared/config.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { initPki } from '../../shared/pki/init.js';
import { derToPem } from '../../shared/pki/pem.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { AzureBlobFileStore, LocalFileStore, StorageUnavailableError, StoredFileMissingError, type FileStore } from '../../shared/storage/index.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { createLogger } from '../../shared/logger.js';
import { processSignJob } from '../../workers/sign-job.js';
import { sweepLeftovers } from '../../shared/storage/temp-owner.js';
import { signJobDeps, signTempDir, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { devConnectionString, startAzurite, type Azurite } from '../support/azurite.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url));
const binary = (res: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const parts: Buffer[] = [];
  res.on('data', (d: Buffer) => parts.push(d));
  res.on('end', () => cb(null, Buffer.concat(parts)));
};

/** Offset of a byte well inside the media data: the mdat box (MP4), the data chunk (WAV), the last frames (MP3, FLAC: signed with the manifest in front). */
function mediaDataOffset(file: Buffer, mimeType: string): number {
  if (mimeType === 'audio/mpeg' || mimeType === 'audio/flac') return file.length - 200;
  if (mimeType === 'audio/wav') {
    for (let at = 12; at + 8 <= file.length; at += 8 + file.readUInt32LE(at + 4) + (file.readUInt32LE(at + 4) % 2)) {
      if (file.toString('latin1', at, at + 4) === 'data') return at + 8 + 1000;
    }
  } else {
    for (let at = 0; at + 8 <= file.length; at += file.readUInt32BE(at)) {
      if (file.toString('latin1', at + 4, at + 8) === 'mdat') return at + 8 + 1000;
      if (file.readUInt32BE(at) < 8) break;
    }
  }
  throw new Error('no media data found');
}

describe('worker: file-backed signing of video and audio', function () {
  this.timeout(120_000);
  let dir: string;
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let deps: SignJobDeps;
  let tempDir: string;
  const media: Record<string, Buffer> = {};

  const upload = (bytes: Buffer, name: string) => request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', bytes, name);
  const uploads = async () => Number((await api.db.knex('uploads').where({ org_id: acc.orgId }).count('* as n'))[0]!.n);
  async function requestSign(bytes: Buffer, name: string): Promise<string> {
    const up = await upload(bytes, name).expect(201);
    const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: name, creator: 'Jane Doe' } }).expect(202);
    return job.body.job_id as string;
  }
  const jobView = async (jobId: string) => (await request(api.app).get(`/v1/media/jobs/${jobId}`).set(bearer(acc.access)).expect(200)).body;
  const download = async (url: string) => (await request(api.app).get(new URL(url).pathname).set(bearer(acc.access)).buffer(true).parse(binary).expect(200)).body as Buffer;

  before(async function () {
    dir = mkdtempSync(path.join(tmpdir(), 'file-backed-'));
    const out = (name: string) => path.join(dir, name);
    await Promise.all([
      ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '2', '-c:v', 'mpeg4', '-q:v', '4', '-c:a', 'aac', '-shortest', out('clip.mp4')]),
      ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-t', '3', '-c:v', 'mpeg4', '-q:v', '1', out('long.mp4')]),
      ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.3', '-t', '2', '-ac', '2', '-c:a', 'pcm_s24le', out('tone.wav')]),
      ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', '2', '-c:a', 'libmp3lame', '-b:a', '64k', out('tone.mp3')]),
      ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=44100:amplitude=0.3', '-t', '2', '-c:a', 'flac', out('tone.flac')]),
    ]);
    for (const name of ['clip.mp4', 'long.mp4', 'tone.wav', 'tone.mp3', 'tone.flac']) media[name] = readFileSync(out(name));
    // Video may be a little over the clip; the longer video is over it, and under the audio and image limits.
    const videoLimit = media['clip.mp4']!.length + 1024;
    expect(media['long.mp4']!.length).to.be.greaterThan(videoLimit);
    api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true', MAX_UPLOAD_BYTES_VIDEO: String(videoLimit), MAX_UPLOAD_BYTES_AUDIO: '50000000', SIGN_ATTEMPTS: '1' });
    const vault = createKeyVault(api.config);
    const pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    rootPem = derToPem(pki.root.der);
    acc = await registerAccount(api.app, 'Newsroom');
    tempDir = path.join(dir, 'work');
    deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault, events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir };
  });
  after(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every one signed streamed: MP4 with a BMFF hash, WAV, MP3 and FLAC with a data hash (shared/c2pa/data-hash-sign.ts).
  for (const [name, mimeType, hashCode, duration] of [
    ['clip.mp4', 'video/mp4', 'assertion.bmffHash', 'PT2S'],
    ['tone.wav', 'audio/wav', 'assertion.dataHash', 'PT2S'],
    ['tone.mp3', 'audio/mpeg', 'assertion.dataHash', null],
    ['tone.flac', 'audio/flac', 'assertion.dataHash', null],
  ] as const) {
    it(`signs ${name} through the file-backed path: Trusted, a flipped byte of its media data Invalid, no temp files left`, async function () {
      const jobId = await requestSign(media[name]!, name);
      await processSignJob(deps, jobId, { number: 1, final: true });
      const job = await jobView(jobId);
      expect(job.status, JSON.stringify(job)).to.equal('signed');
      expect(job.signed_file.mime_type).to.equal(mimeType);
      const row = await api.db.knex('signed_files').where({ job_id: jobId }).first();
      expect(row.filename).to.equal(name.replace('.', '-signed.'));
      const signed = await download(job.signed_file.download_url);
      expect(signed.length).to.equal(job.signed_file.size);
      const report = await readAsset(signed, mimeType as SignableMimeType, { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.status.success).to.include(`${hashCode}.match`);
      expect(report.manifest).to.deep.include({ title: name, creator: 'Jane Doe' });
      // The manifest fits the medium: its playing time where the format's header says it (xmpDM:duration in cawg.metadata; the files last 2 s).
      expect(report.manifest?.duration).to.equal(duration);
      expect(report.signer?.serial).to.equal(job.signed_file.certificate_serial);

      const tampered = Buffer.from(signed);
      const at = mediaDataOffset(tampered, mimeType);
      tampered[at] = tampered[at]! ^ 0x01;
      const bad = await readAsset(tampered, mimeType as SignableMimeType, { trustAnchorsPem: rootPem });
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.include(`${hashCode}.mismatch`);
      // The service's own verification agrees on both (the video limit here is about the clip's size: no room for a form around it).
      for (const [bytes, state] of mimeType === 'video/mp4' ? [] : ([[signed, 'Trusted'], [tampered, 'Invalid']] as const)) {
        const verified = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', bytes, name).expect(200);
        expect([verified.body.validation_state, verified.body.mime_type]).to.deep.equal([state, mimeType]);
      }

      expect(readdirSync(tempDir)).to.deep.equal([]);
    });
  }

  it('leaves no temp files when a job fails after signing (the store refuses the signed file) or before it', async function () {
    const refusing = new Proxy(deps.files, {
      get: (store, name) => {
        if (name === 'putFile') return async () => Promise.reject(new StorageUnavailableError('store down'));
        const value = Reflect.get(store, name, store) as unknown;
        return typeof value === 'function' ? value.bind(store) : value;
      },
    });
    const jobId = await requestSign(media['tone.wav']!, 'tone.wav');
    const err = await processSignJob({ ...deps, files: refusing }, jobId, { number: 1, final: true }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(StorageUnavailableError);
    expect((await jobView(jobId)).error).to.deep.equal({ code: 'storage_unavailable', message: 'file storage could not be reached' });
    expect(readdirSync(tempDir)).to.deep.equal([]);

    const early = await requestSign(media['clip.mp4']!, 'clip.mp4');
    const noIdentity = async () => {
      throw new Error('no identity today');
    };
    expect(await processSignJob({ ...deps, signingIdentity: noIdentity }, early, { number: 1, final: true }).catch((e: unknown) => e)).to.be.instanceOf(Error);
    expect((await jobView(early)).status).to.equal('failed');
    expect(readdirSync(tempDir)).to.deep.equal([]);
  });

  it('refuses a video over MAX_UPLOAD_BYTES_VIDEO with 413 and keeps nothing; audio and images keep their own limits', async function () {
    const n = await uploads();
    const res = await upload(media['long.mp4']!, 'long.mp4');
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
    expect(res.body.error.message).to.match(new RegExp(`^video files may be at most ${api.config.maxUploadBytesVideo} bytes`));
    expect(res.body.error.message).to.contain(`this one is ${media['long.mp4']!.length} bytes`);
    expect(await uploads()).to.equal(n);
    expect(readdirSync(path.join(api.config.dataDir, 'tmp'))).to.deep.equal([]);
    // A WAV and a JPEG larger than the video limit are within their own limits.
    const longWav = path.join(dir, 'long.wav');
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.3', '-t', '6', '-ac', '2', '-c:a', 'pcm_s24le', longWav]);
    const wav = readFileSync(longWav);
    expect(wav.length).to.be.greaterThan(api.config.maxUploadBytesVideo);
    expect((await upload(wav, 'long.wav').expect(201)).body.mime_type).to.equal('audio/wav');
    const photo = fixture('photo.jpg');
    if (photo.length > api.config.maxUploadBytesVideo) expect((await upload(photo, 'photo.jpg').expect(201)).body.mime_type).to.equal('image/jpeg');
  });

  it('sweeps job directories of processes that are gone, and old unnamed ones, leaving live processes theirs', async function () {
    const sweepDir = path.join(dir, 'sweep');
    const dead = spawnSync('true').pid!; // a process that has ended
    const names = [`p${dead}-sign-job-1-abc`, `p${process.pid}-sign-job-2-def`, 'sign-old-1', 'sign-new-1'];
    for (const name of names) mkdirSync(path.join(sweepDir, name), { recursive: true });
    writeFileSync(path.join(sweepDir, names[0]!, 'source'), 'x');
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(path.join(sweepDir, 'sign-old-1'), old, old);
    expect(await sweepLeftovers(sweepDir)).to.equal(2);
    expect(readdirSync(sweepDir).sort()).to.deep.equal([`p${process.pid}-sign-job-2-def`, 'sign-new-1'].sort());
    expect(await sweepLeftovers(path.join(dir, 'no-such-dir'))).to.equal(0);
  });
});

describe('worker: FileStore.readToFile', function () {
  this.timeout(60_000);
  let dir: string;
  let azurite: Azurite | undefined;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'read-to-file-'));
  });
  after(async () => {
    await azurite?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function contract(store: FileStore) {
    await store.ensureReady();
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    bytes.write('first', 0);
    await store.write('uploads/org/file.bin', bytes);
    const local = path.join(dir, `${store.kind}-copy`);
    writeFileSync(local, 'stale');
    await store.readToFile('uploads/org/file.bin', local);
    expect(readFileSync(local).equals(bytes)).to.equal(true);
    const missing = path.join(dir, `${store.kind}-missing`);
    const err = await store.readToFile('uploads/org/none.bin', missing).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(StoredFileMissingError);
    expect(existsSync(missing)).to.equal(false);
  }

  it('local directory: the stored file at the local path (a hard link on the same disk), missing keys refused', async function () {
    const store = new LocalFileStore(path.join(dir, 'data'));
    await contract(store);
    // Same disk: a link, not a copy (the store never changes a file in place).
    const inode = (p: string) => Number(execFileSync('stat', ['-c', '%i', p], { encoding: 'utf8' }).trim());
    expect(inode(path.join(dir, 'local-copy'))).to.equal(inode(path.join(dir, 'data', 'files', 'uploads/org/file.bin')));
  });

  it('Azure Blob Storage (Azurite): streamed to the local path, missing keys refused', async function () {
    azurite = await startAzurite();
    await contract(new AzureBlobFileStore({ connectionString: devConnectionString(azurite.port) }, `rtf-${Date.now().toString(36)}`));
  });
});

describe('worker: sandboxes that signed a large file are replaced', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let worker: RoleProcess | undefined;
  let clip: Buffer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'recycle-'));
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-t', '1', '-c:v', 'mpeg4', path.join(dir, 'c.mp4')]);
    clip = readFileSync(path.join(dir, 'c.mp4'));
    api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true' });
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    acc = await registerAccount(api.app, 'Newsroom');
  });
  // Each test's worker ends with it: a worker left running would outlive the run (its sandboxes with it).
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  after(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a sandbox whose WASM memory passed WORKER_RECYCLE_WASM_BYTES while jobs come, ends it once idle', async function () {
    // Every job passes a 1-byte threshold; 1.5 s without a job is idle.
    worker = await startTestWorker(api, 'http://127.0.0.1:9', { WORKER_CONCURRENCY: '1', SIGN_WITHOUT_TIMESTAMP: 'true', WORKER_RECYCLE_WASM_BYTES: '1', WORKER_RECYCLE_IDLE_MS: '1500' });
    const out = () => worker!.output();
    const ended = () => out().split('ending a sandbox process whose WASM memory grew with a large file').length - 1;
    /** pid of the sandbox that signed each job, from its `signed` log lines. */
    const signers = () => out().split('\n').filter((l) => l.includes('"msg":"signed"')).map((l) => (JSON.parse(l) as { pid: number }).pid);
    const sign = async () => {
      const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', clip, 'c.mp4').expect(201);
      const job = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Clip', creator: 'Jane Doe' } }).expect(202);
      let status = 'queued';
      for (let t = 0; t < 6 && ['queued', 'processing'].includes(status); t += 1) {
        status = (await request(api.app).get(`/v1/media/jobs/${job.body.job_id}?wait=20`).set(bearer(acc.access)).expect(200)).body.status;
      }
      expect(status).to.equal('signed');
    };
    const waitFor = async (condition: () => boolean) => {
      for (let t = 0; t < 200 && !condition(); t += 1) await new Promise((r) => setTimeout(r, 50));
      expect(condition(), out()).to.equal(true);
    };

    // Back to back: the same (warm) sandbox signs both.
    await sign();
    await sign();
    await waitFor(() => signers().length === 2);
    const [a, b] = signers();
    expect(b).to.equal(a);
    expect(ended()).to.equal(0);
    // Idle: ended, and no longer a child of the worker.
    await waitFor(() => ended() === 1);
    const children = () => {
      try {
        return execFileSync('pgrep', ['-P', String(worker!.child.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
      } catch {
        return []; // pgrep exits 1 when there is none
      }
    };
    await waitFor(() => !children().includes(a!));
    // The next job gets a fresh sandbox.
    await sign();
    await waitFor(() => signers().length === 3);
    expect(signers()[2]).to.not.equal(a);
    // The worker's jobs left nothing in its temp directory.
    const work = signTempDir(api.config);
    expect(existsSync(work) ? readdirSync(work) : []).to.deep.equal([]);
    // It said at start that ffmpeg (Debian's, FFMPEG_PATH's default) takes video thumbnails' frames.
    expect(out()).to.match(/"ffmpeg":"ffmpeg version [^"]+".*video claim thumbnails: frames taken by ffmpeg/);
  });

  it('says at start when video will get no claim thumbnails: ffmpeg missing, or FFMPEG_PATH=off', async function () {
    for (const [value, said] of [[path.join(dir, 'no-ffmpeg'), /ffmpeg cannot be run \(FFMPEG_PATH\)/], ['off', /FFMPEG_PATH=off: video is signed without claim thumbnails/]] as const) {
      worker = await startTestWorker(api, 'http://127.0.0.1:9', { WORKER_CONCURRENCY: '1', SIGN_WITHOUT_TIMESTAMP: 'true', FFMPEG_PATH: value });
      expect(worker.output()).to.match(said);
      await worker.stop();
      worker = undefined;
    }
  });
});

describe('worker: upload limits and recycling settings', function () {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'limits-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const base = () => ({ DATA_DIR: dataDir });

  it('defaults: video 8 GiB, audio 4 GiB, images MAX_UPLOAD_BYTES; staging takes the largest', function () {
    const config = loadConfig(base());
    expect(config.maxUploadBytesVideo).to.equal(8 * 2 ** 30);
    expect(config.maxUploadBytesAudio).to.equal(4 * 2 ** 30);
    expect(uploadLimitFor(config, 'image')).to.equal(config.maxUploadBytes);
    expect(uploadLimitFor(config, 'video')).to.equal(config.maxUploadBytesVideo);
    expect(uploadLimitFor(config, 'audio')).to.equal(config.maxUploadBytesAudio);
    expect(largestUploadLimit(config)).to.equal(8 * 2 ** 30);
    expect(largestUploadLimit(loadConfig({ ...base(), MAX_UPLOAD_BYTES_VIDEO: String(256 * 2 ** 20), MAX_UPLOAD_BYTES_AUDIO: String(200 * 2 ** 20), MAX_UPLOAD_BYTES: String(300 * 2 ** 20) }))).to.equal(300 * 2 ** 20);
    // Nothing stops video at 4 GiB (signed streamed, shared/c2pa/bmff-sign.ts).
    expect(loadConfig({ ...base(), MAX_UPLOAD_BYTES_VIDEO: String(64 * 2 ** 30) }).maxUploadBytesVideo).to.equal(64 * 2 ** 30);
    // Nor audio (WAV, MP3, FLAC and M4A are signed streamed; a WAV's own 4 GiB bound is its format's, at upload).
    expect(loadConfig({ ...base(), MAX_UPLOAD_BYTES_AUDIO: String(16 * 2 ** 30) }).maxUploadBytesAudio).to.equal(16 * 2 ** 30);
    expect(config.workerRecycleWasmBytes).to.equal(512 * 2 ** 20);
    expect(config.workerRecycleIdleMs).to.equal(30_000);
    expect(config.ffmpegPath).to.equal('ffmpeg');
    expect(loadConfig({ ...base(), FFMPEG_PATH: '/opt/ffmpeg/bin/ffmpeg' }).ffmpegPath).to.equal('/opt/ffmpeg/bin/ffmpeg');
    expect(loadConfig({ ...base(), FFMPEG_PATH: 'off' }).ffmpegPath).to.equal(undefined);
  });

  for (const [name, value, pattern] of [
    ['MAX_UPLOAD_BYTES_AUDIO', String(2 ** 40 + 1), /between 1 and/],
    ['MAX_UPLOAD_BYTES_VIDEO', String(2 ** 40 + 1), /between 1 and/],
    ['MAX_UPLOAD_BYTES_AUDIO', '0', /between 1 and/],
    ['MAX_UPLOAD_BYTES_AUDIO', '200MB', /whole number/],
    ['WORKER_RECYCLE_IDLE_MS', '-5', /whole number/],
  ] as const) {
    it(`refuses ${name}=${value}`, function () {
      expect(() => loadConfig({ ...base(), [name]: value })).to.throw(ConfigError, new RegExp(`${name}.*${pattern.source}`));
    });
  }
});
