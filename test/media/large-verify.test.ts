/**
 * Verifying video and audio larger than MAX_UPLOAD_BYTES: a signed-in caller may verify what it may sign (up to the
 * kind's own limit); c2pa-rs reads such a file from disk in the verification pool (api/media/verify-pool.ts, one
 * process here: VERIFY_POOL_SIZE=1, VERIFY_QUEUE_LIMIT=4), never in the API process. MAX_UPLOAD_BYTES is set to
 * 256 KiB here so that files of about a MiB take that path.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import { c2paWasm, c2paWasmMemoryBytes } from '../../shared/c2pa/wasm.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { growth } from '../metrics/support.js';
import { descendantPids } from '../support/descendants.js';
import { noisePng } from '../support/noise-png.js';
import { bearer, downloadFile, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
const LIMIT = 256 * 1024;

/** Verification pool members this test process started (through the pool's supervisor) that are still running. */
const verifyProcesses = () => descendantPids('api/media/verify-process.');

describe('media: verifying video and audio larger than MAX_UPLOAD_BYTES (read from disk in the verification pool)', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let deps: SignJobDeps;
  let dir: string;
  const signed: Record<string, Buffer> = {};

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'large-verify-'));
    api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true', SIGN_ATTEMPTS: '1', MAX_UPLOAD_BYTES: String(LIMIT), VERIFY_POOL_SIZE: '1', VERIFY_QUEUE_LIMIT: '4' });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    acc = await registerAccount(api.app, 'Large Files Desk');
    deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault, events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir: path.join(dir, 'work') };
    // About 1 MiB each: 11 s of 48 kHz 16-bit mono, and 4 s of 320x240 MPEG-4 at a high bitrate.
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=11', '-c:a', 'pcm_s16le', path.join(dir, 'tone.wav')]);
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=4', '-c:v', 'mpeg4', '-q:v', '2', path.join(dir, 'clip.mp4')]);
    // MP3 and FLAC (signed with an ID3 tag in front): noise, which neither codec makes much smaller.
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=44100:amplitude=0.5:duration=11', '-c:a', 'libmp3lame', '-b:a', '256k', path.join(dir, 'noise.mp3')]);
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.5:duration=11', '-c:a', 'flac', path.join(dir, 'noise.flac')]);
    for (const name of ['tone.wav', 'clip.mp4', 'noise.mp3', 'noise.flac']) {
      const bytes = readFileSync(path.join(dir, name));
      expect(bytes.length, name).to.be.greaterThan(LIMIT);
      const jobId = await submitSign(api.app, acc, bytes, name, { title: name, creator: 'Desk' });
      await processSignJob(deps, jobId, { number: 1, final: true });
      signed[name] = await downloadFile(api.app, acc, (await waitForJob(api.app, acc, jobId)).signed_file.download_url);
    }
  });
  after(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
    // Closing the API ends its pool's processes.
    expect(descendantPids('api/media/verify-')).to.deep.equal([]);
  });

  const verify = (bytes: Buffer, name: string) => request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', bytes, name);

  it('reads them Trusted with their duration, a changed media byte Invalid, without growing the API process', async () => {
    c2paWasm();
    const wasmBefore = c2paWasmMemoryBytes();
    for (const [name, mime, duration, mismatch] of [
      ['tone.wav', 'audio/wav', 'PT11S', 'assertion.dataHash.mismatch'],
      ['clip.mp4', 'video/mp4', 'PT4S', 'assertion.bmffHash.mismatch'],
      ['noise.mp3', 'audio/mpeg', null, 'assertion.dataHash.mismatch'],
      ['noise.flac', 'audio/flac', null, 'assertion.dataHash.mismatch'],
    ] as const) {
      const ok = await verify(signed[name]!, name);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect([ok.body.validation_state, ok.body.mime_type, ok.body.manifest.title, ok.body.manifest.duration]).to.deep.equal(['Trusted', mime, name, duration]);
      expect(ok.body.revocation.status).to.equal('good');
      // A byte in the middle of the file, far from the manifest at either end.
      const tampered = Buffer.from(signed[name]!);
      const jumbf = tampered.indexOf('jumb');
      const at = jumbf > tampered.length / 2 ? Math.floor(jumbf / 2) : Math.floor((tampered.length + jumbf) / 2);
      tampered[at] = tampered[at]! ^ 0x01;
      const bad = await verify(tampered, name);
      expect([bad.status, bad.body.validation_state]).to.deep.equal([200, 'Invalid']);
      expect(bad.body.status.failure).to.include(mismatch);
    }
    // c2pa-rs ran elsewhere: this process's WASM memory did not grow; the pool's one process did the reading.
    expect(c2paWasmMemoryBytes()).to.equal(wasmBefore);
    expect(verifyProcesses()).to.deep.equal(api.verifyPool.pids());
    expect(verifyProcesses()).to.have.length(1);
  });

  it('reads one file at a time (VERIFY_POOL_SIZE), four more waiting (VERIFY_QUEUE_LIMIT); beyond that 503 verification_busy with Retry-After', async () => {
    // Eight at once: staging a MiB takes milliseconds, a read about a tenth of a second.
    let answers: request.Response[] = [];
    // Never more than one verify process at a time (sampled while they run).
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, verifyProcesses().length);
    }, 25);
    const [busyCount, readCount] = await growth([['mss_verify_pool_rejections_total', { reason: 'busy' }], ['mss_verify_pool_task_seconds_count', { task: 'verify', outcome: 'ok' }]], async () => {
      answers = await Promise.all(Array.from({ length: 8 }, () => verify(signed['tone.wav']!, 'tone.wav')));
    }).finally(() => clearInterval(sampler));
    expect(most).to.equal(1);
    const busy = answers.filter((a) => a.status === 503);
    // Operators see both in /metrics.
    expect([busyCount, readCount]).to.deep.equal([busy.length, 8 - busy.length]);
    expect(busy.length, answers.map((a) => a.status).join(' ')).to.be.within(1, 3);
    for (const b of busy) expect([b.body.error.code, b.headers['retry-after']]).to.deep.equal(['verification_busy', '5']);
    for (const a of answers.filter((x) => x.status !== 503)) expect([a.status, a.body.validation_state]).to.deep.equal([200, 'Trusted']);
    expect(verifyProcesses()).to.have.length(1);
  });

  it('says what is wrong with a damaged large file (400 or 422 from the verify process), and keeps the other limits', async () => {
    const wav = signed['tone.wav']!;
    const jumbf = wav.indexOf('jumb');
    const garbled = Buffer.from(wav);
    garbled.fill(0x41, jumbf + 16, jumbf + 24);
    const unreadable = await verify(garbled, 'tone.wav');
    expect([unreadable.status, unreadable.body.error?.code]).to.deep.equal([422, 'unreadable_credentials']);
    const cut = await verify(wav.subarray(0, jumbf + 100), 'tone.wav');
    expect([cut.status, cut.body.error?.code]).to.deep.equal([400, 'corrupt_media']);
    // The public endpoint keeps MAX_UPLOAD_BYTES; images keep it on both.
    const anonymous = await request(api.app).post('/v1/verify').attach('file', wav, 'tone.wav');
    expect([anonymous.status, anonymous.body.error?.code]).to.deep.equal([413, 'payload_too_large']);
    const bigImage = noisePng(400, 300);
    expect(bigImage.length).to.be.greaterThan(LIMIT);
    const image = await verify(bigImage, 'noise.png');
    expect([image.status, image.body.error?.code]).to.deep.equal([413, 'payload_too_large']);
    expect(verifyProcesses()).to.have.length(1);
  });
});
