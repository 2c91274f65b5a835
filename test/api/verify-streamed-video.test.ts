/**
 * Signed-in POST /v1/media/verify of MP4 and MOV read from disk (over MAX_UPLOAD_BYTES, here a few kilobytes), as
 * video of any size is: the manifest store read out of the file, the BMFF hash checked by streaming
 * (shared/c2pa/bmff-read.ts), never the whole file in c2pa-wasm. A file the worker signed reads Trusted, embedded and
 * checked against the file; one flipped mdat byte reads Invalid with assertion.bmffHash.mismatch; crJSON carries the
 * same verdict; a file without a manifest reads none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { makeClip, withFlippedMediaByte } from '../c2pa/bmff-files.js';
import { bearer, downloadFile, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';

describe('verify: video read from disk, streamed', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;
  let deps: SignJobDeps;
  let dir: string;
  const clips: Record<string, Buffer> = {};
  const signed: Record<string, Buffer> = {};

  const verify = (bytes: Buffer, name: string, query = '') => request(api.app).post(`/v1/media/verify${query}`).set(bearer(acc.access)).attach('file', bytes, name).expect(200);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'verify-streamed-'));
    for (const name of ['clip.mp4', 'clip.mov'] as const) clips[name] = await makeClip(dir, name);
    api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true', MAX_UPLOAD_BYTES: '4096' });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    acc = await registerAccount(api.app, 'Video Desk');
    deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault, events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir: path.join(dir, 'work') };
    for (const [name, bytes] of Object.entries(clips)) {
      expect(bytes.length).to.be.above(api.config.maxUploadBytes);
      const jobId = await submitSign(api.app, acc, bytes, name);
      await processSignJob(deps, jobId, { number: 1, final: true });
      const job = await waitForJob(api.app, acc, jobId);
      expect(job.status, JSON.stringify(job.error)).to.equal('signed');
      signed[name] = await downloadFile(api.app, acc, job.signed_file.download_url);
    }
  });
  after(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['clip.mp4', 'clip.mov']) {
    it(`${name} signed by the worker reads Trusted, its binding checked against the file; a flipped mdat byte Invalid`, async () => {
      const good = (await verify(signed[name]!, name)).body;
      expect(good.validation_state, JSON.stringify(good.status)).to.equal('Trusted');
      expect(good.status.success).to.include('assertion.bmffHash.match');
      expect(good.manifest_source).to.deep.include({ kind: 'embedded', asset_checked: true });
      expect(good.signer.trust_source).to.equal('service_ca');
      const bad = (await verify(withFlippedMediaByte(signed[name]!), name)).body;
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
      expect(bad.summary).to.match(/assertion\.bmffHash\.mismatch in the manifest/);
    });
  }

  it('crJSON with the verdict on the file; an unsigned file reads none', async () => {
    const crJson = (await verify(signed['clip.mp4']!, 'clip.mp4', '?format=crjson')).body as { manifests: { validationResults: { success: { code: string }[]; failure: unknown[] } }[] };
    expect(crJson.manifests[0]!.validationResults.success.map((c) => c.code)).to.include('assertion.bmffHash.match');
    expect(crJson.manifests[0]!.validationResults.failure).to.deep.equal([]);
    expect((await verify(clips['clip.mp4']!, 'clip.mp4')).body.validation_state).to.equal('none');
  });
});
