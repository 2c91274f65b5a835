/**
 * Every format through the API and the worker's signing code (processSignJob, the file-backed path a sandbox runs):
 * upload (recognised by content), sign, download; c2pa-rs reads the result Trusted with only the service root, and
 * a flipped byte in the media data (away from the manifest) reads Invalid.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { MEDIA_FORMATS } from '../../shared/media/formats.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { downloadFile, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import type { Samples } from './samples.js';
import { openSigningDesk } from './signing-desk.js';
import { noisePng } from '../support/noise-png.js';
import sharp from 'sharp';
import request from 'supertest';

/**
 * A byte of media data: the middle of the larger stretch of the file outside the embedded manifest (found by its
 * JUMBF label "c2pa"; signing inserted signed.length - original.length bytes there), away from the file's ends.
 */
function mediaByte(signed: Buffer, original: Buffer): number {
  const label = signed.indexOf('c2pa');
  const inserted = signed.length - original.length;
  const before = [64, Math.max(64, label - 64)] as const;
  const after = [Math.min(signed.length - 64, label + inserted + 64), signed.length - 64] as const;
  const [from, to] = before[1] - before[0] >= after[1] - after[0] ? before : after;
  return Math.floor((from + to) / 2);
}

/** Changes one byte of media data; in a text format (SVG) a digit, so the file stays well-formed and only differs. */
function tamper(signed: Buffer, original: Buffer, text: boolean): { bytes: Buffer; at: number } {
  const bytes = Buffer.from(signed);
  let at = mediaByte(signed, original);
  if (text) {
    while (at < bytes.length && !(bytes[at]! >= 0x30 && bytes[at]! <= 0x39)) at += 1;
    bytes[at] = bytes[at] === 0x39 ? 0x38 : bytes[at]! + 1;
  } else {
    bytes[at] = bytes[at]! ^ 0x01;
  }
  return { bytes, at };
}

describe('media: every format signed through the worker, Trusted; a flipped media byte Invalid', function () {
  this.timeout(180_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let deps: SignJobDeps;
  let samples: Samples;
  let dir: string;

  before(async () => {
    ({ api, acc, rootPem, deps, samples, dir } = await openSigningDesk('Every Format Desk'));
  });
  after(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const format of MEDIA_FORMATS) {
    it(`${format.label} (${format.mimeType})`, async () => {
      // The GIF sample is a few hundred bytes, nearly all header and palette: a noisy one has image data to change.
      const original = format.mimeType === 'image/gif' ? await sharp(noisePng(128, 96)).gif().toBuffer() : samples[format.mimeType];
      // The name says nothing: every file is uploaded as "upload.bin" and recognised by its content.
      const jobId = await submitSign(api.app, acc, original, 'upload.bin', { title: format.label, creator: 'Desk' });
      await processSignJob(deps, jobId, { number: 1, final: true });
      const job = await waitForJob(api.app, acc, jobId);
      expect(job.status, JSON.stringify(job.error)).to.equal('signed');
      expect(job.signed_file.mime_type).to.equal(format.mimeType);
      const row = await api.db.knex('signed_files').where({ job_id: jobId }).first('filename');
      expect(row.filename).to.equal(`upload-signed.${format.extension}`);
      const signed = await downloadFile(api.app, acc, job.signed_file.download_url);
      const mime = format.mimeType as SignableMimeType;
      const report = await readAsset(signed, mime, { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
      expect(report.manifest?.title).to.equal(format.label);
      // The public repository draws thumbnails of images it can decode; video, audio (and formats libvips cannot
      // read here) have none: 404, never a server error.
      const drawable = format.kind === 'image' && (await sharp(original).metadata().then(() => true, () => false));
      const thumb = await request(api.app).get(`/v1/manifests/${encodeURIComponent(report.active_manifest!)}/thumbnail`);
      expect(thumb.status).to.equal(drawable ? 200 : 404);

      const { bytes: tampered, at } = tamper(signed, original, format.mimeType === 'image/svg+xml');
      const bad = await readAsset(tampered, mime, { trustAnchorsPem: rootPem }).catch((err: Error) => ({ validation_state: `unreadable: ${err.message}` }));
      expect(bad.validation_state, `flipped byte ${at} of ${signed.length}`).to.equal('Invalid');
    });
  }

  it('a damaged signed file on verify: cut short in its manifest a 400 naming what is wrong, in its media Invalid, unreadable credentials a 422; never a server error', async () => {
    for (const [mime, name] of [['video/mp4', 'clip.mp4'], ['audio/wav', 'tone.wav'], ['image/jpeg', 'still.jpg']] as const) {
      const jobId = await submitSign(api.app, acc, samples[mime], name, { title: 'Damaged', creator: 'Desk' });
      await processSignJob(deps, jobId, { number: 1, final: true });
      const signed = await downloadFile(api.app, acc, (await waitForJob(api.app, acc, jobId)).signed_file.download_url);
      const jumbf = signed.indexOf('jumb');
      // Cut off inside the manifest: c2pa-rs cannot read it, the structure walk says what is wrong.
      const cutInManifest = signed.subarray(0, jumbf + 100);
      // Cut off in the media data after the manifest (or before it): whatever c2pa-rs can read, it judges.
      const cutInMedia = signed.subarray(0, jumbf > signed.length / 2 ? Math.floor(jumbf / 2) : Math.floor((signed.length + jumbf) / 2));
      // Eight bytes of the JUMBF's description box overwritten, every size left as it was: the file is sound, its
      // credentials cannot be parsed.
      const garbled = Buffer.from(signed);
      garbled.fill(0x41, jumbf + 16, jumbf + 24);
      for (const path of ['/v1/media/verify', '/v1/verify']) {
        const send = (bytes: Buffer) => request(api.app).post(path).set('Authorization', `Bearer ${acc.access}`).attach('file', bytes, name);
        const cut = await send(cutInManifest);
        expect([cut.status, cut.body.error?.code], `${name} cut in its manifest, ${path}: ${JSON.stringify(cut.body)}`).to.deep.equal([400, mime.startsWith('image/') ? 'corrupt_image' : 'corrupt_media']);
        expect(cut.body.error.message).to.match(/truncated/);
        const short = await send(cutInMedia);
        expect(short.status, `${name} cut in its media, ${path}: ${JSON.stringify(short.body)}`).to.be.oneOf([200, 400]);
        if (short.status === 200) expect(short.body.validation_state).to.be.oneOf(['Invalid', 'none']);
        const bad = await send(garbled);
        expect([bad.status, bad.body.error?.code], `${name} garbled, ${path}: ${JSON.stringify(bad.body)}`).to.deep.equal([422, 'unreadable_credentials']);
        expect(bad.body.error.message).to.match(/^the file's Content Credentials cannot be read \(c2pa-rs could not read the/);
      }
    }
  });

  it('a video signed with a claim thumbnail: verify reports it, the public repository serves it (never reading the video)', async () => {
    const jobId = await submitSign(api.app, acc, samples['video/mp4'], 'clip.mp4', { title: 'Clip', creator: 'Desk', thumbnail: true });
    await processSignJob(deps, jobId, { number: 1, final: true });
    const job = await waitForJob(api.app, acc, jobId);
    expect(job.status, JSON.stringify(job.error)).to.equal('signed');
    const signed = await downloadFile(api.app, acc, job.signed_file.download_url);
    const verified = await request(api.app).post('/v1/media/verify').set('Authorization', `Bearer ${acc.access}`).attach('file', signed, 'clip.mp4');
    expect(verified.status, JSON.stringify(verified.body)).to.equal(200);
    expect(verified.body.manifest.thumbnail).to.deep.equal({ format: 'image/jpeg' });
    const id = encodeURIComponent(verified.body.active_manifest);
    const described = await request(api.app).get(`/v1/manifests/${id}`).set('Accept', 'application/json');
    expect(described.body.thumbnail_url).to.match(/\/thumbnail$/);
    // The stored video is gone from the store: the picture comes from the manifest alone.
    const row = await api.db.knex('signed_files').where({ job_id: jobId }).first('storage_key');
    await deps.files.remove(row.storage_key);
    const thumb = await request(api.app).get(`/v1/manifests/${id}/thumbnail`);
    expect(thumb.status).to.equal(200);
    expect(thumb.headers['content-type']).to.equal('image/jpeg');
    const meta = await sharp(thumb.body as Buffer).metadata();
    expect(Math.max(meta.width!, meta.height!)).to.be.at.most(320);

    // Signed without one (not asked for): 404 with the reason.
    const plainId = await submitSign(api.app, acc, samples['video/mp4'], 'plain.mp4', { title: 'Plain', creator: 'Desk' });
    await processSignJob(deps, plainId, { number: 1, final: true });
    const plain = await readAsset(await downloadFile(api.app, acc, (await waitForJob(api.app, acc, plainId)).signed_file.download_url), 'video/mp4', { trustAnchorsPem: rootPem });
    const none = await request(api.app).get(`/v1/manifests/${encodeURIComponent(plain.active_manifest!)}/thumbnail`);
    expect([none.status, none.body.error.message]).to.deep.equal([404, 'this video was signed without a claim thumbnail']);
    expect((await request(api.app).get(`/v1/manifests/${encodeURIComponent(plain.active_manifest!)}`).set('Accept', 'application/json')).body.thumbnail_url).to.equal(null);
  });
});
