/**
 * A fragmented MP4 rendition through the API, as a broadcaster sends one: an ffmpeg DASH representation (init segment,
 * 5 segments, its MPD) uploaded as one multipart body, signed by the usual job, downloaded as a zip (read by yauzl)
 * holding the signed init segment, every signed segment and the playlist unchanged under their names; c2pa-rs's
 * fromBlobFragment reads every segment Trusted under the service's root, a changed segment Invalid alone; signed-in
 * verify answers one verdict per segment; what cannot be signed is refused with 422 and a reason; another
 * organisation sees none of it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import yauzl from 'yauzl';
import { trustAnchorsPem } from '../../api/media/verification-trust.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import { fragmentVerdict, makeDashRendition, makeHlsRendition, type RenditionFiles } from '../c2pa/renditions.js';
import { bearer, downloadFile, registerAccount, startTestApi, waitForJob, type Account, type TestApi } from '../support/api.js';

/** The entries of a zip, in order, as yauzl reads them. */
function unzip(zip: Buffer): Promise<{ name: string; bytes: Buffer }[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err);
      const entries: { name: string; bytes: Buffer }[] = [];
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, bytes: Buffer.concat(chunks) });
            file.readEntry();
          });
        });
      });
      file.on('end', () => resolve(entries));
      file.on('error', reject);
      file.readEntry();
    });
  });
}

describe('renditions: fragmented MP4 through the API', function () {
  this.timeout(180_000);
  let api: TestApi;
  let a: Account;
  let b: Account;
  let deps: SignJobDeps;
  let dir: string;
  let dash: RenditionFiles;
  let hls: RenditionFiles;
  let rootPem: string;
  let signed: { job: Record<string, any>; entries: { name: string; bytes: Buffer }[]; zip: Buffer };

  /** The rendition's parts attached to a request, in order. */
  const attachRendition = (req: request.Test, r: Pick<RenditionFiles, 'init' | 'segments'> & { playlist?: RenditionFiles['playlist'] }) => {
    req.attach('init', r.init.bytes, r.init.name);
    for (const s of r.segments) req.attach('fragment', s.bytes, s.name);
    if (r.playlist) req.attach('playlist', r.playlist.bytes, r.playlist.name);
    return req;
  };
  const upload = (acc: Account, r: Parameters<typeof attachRendition>[1]) => attachRendition(request(api.app).post('/v1/media/upload').set(bearer(acc.access)), r);
  const verify = (acc: Account, r: Parameters<typeof attachRendition>[1]) => attachRendition(request(api.app).post('/v1/media/verify').set(bearer(acc.access)), r);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'renditions-api-'));
    [dash, hls] = await Promise.all([makeDashRendition(dir), makeHlsRendition(dir)]);
    api = await startTestApi({ SIGN_WITHOUT_TIMESTAMP: 'true' });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    [a, b] = [await registerAccount(api.app, 'Broadcast Desk'), await registerAccount(api.app, 'Other Org')];
    deps = { ...signJobDeps({ config: api.config, knex: api.db.knex, vault, events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir: path.join(dir, 'work') };
    rootPem = (await trustAnchorsPem(api.db.knex)).join('\n');

    const up = (await upload(a, dash).expect(201)).body;
    const sign = await request(api.app).post('/v1/media/sign').set(bearer(a.access)).send({ upload_id: up.upload_id, manifest: { title: 'Evening news', creator: 'Broadcast Desk', thumbnail: true } }).expect(202);
    await processSignJob(deps, sign.body.job_id, { number: 1, final: true });
    const job = await waitForJob(api.app, a, sign.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('signed');
    const zip = await downloadFile(api.app, a, job.signed_file.download_url);
    signed = { job, zip, entries: await unzip(zip) };
  });
  after(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is uploaded as one upload with its parts in order; the list says it is a rendition', async () => {
    const up = (await upload(a, dash).expect(201)).body;
    expect(up).to.include({ mime_type: 'video/mp4', filename: 'init-0.m4s', sha256: createHash('sha256').update(dash.init.bytes).digest('hex') });
    expect(up.size).to.equal([dash.init, ...dash.segments, dash.playlist].reduce((n, p) => n + p.bytes.length, 0));
    expect(up.rendition.fragments).to.equal(5);
    expect(up.rendition.playlists).to.equal(1);
    expect(up.rendition.parts.map((p: { role: string; filename: string }) => `${p.role}:${p.filename}`)).to.deep.equal([
      'init:init-0.m4s',
      ...dash.segments.map((s) => `fragment:${s.name}`),
      'playlist:stream.mpd',
    ]);
    const listed = (await request(api.app).get('/v1/media/uploads').set(bearer(a.access)).expect(200)).body.uploads.find((u: { upload_id: string }) => u.upload_id === up.upload_id);
    expect(listed.rendition).to.deep.equal({ fragments: 5, playlists: 1 });
  });

  it('is signed by the usual job and downloaded as a zip of every part under its name, the playlist unchanged', () => {
    expect(signed.job.signed_file.rendition).to.deep.equal({ fragments: 5, playlists: 1 });
    expect(signed.job.signed_file.mime_type).to.equal('video/mp4');
    expect(signed.entries.map((e) => e.name)).to.deep.equal(['init-0.m4s', ...dash.segments.map((s) => s.name), 'stream.mpd']);
    expect(signed.entries.at(-1)!.bytes.equals(dash.playlist.bytes)).to.equal(true);
    expect(signed.job.signed_file.size).to.equal(signed.entries.reduce((n, e) => n + e.bytes.length, 0));
    for (const [i, e] of signed.entries.slice(1, -1).entries()) expect(e.bytes.length).to.be.above(dash.segments[i]!.bytes.length);
  });

  it("c2pa-rs's fromBlobFragment reads every segment Trusted under the service's root; a changed byte in one is Invalid alone", async () => {
    const [init, ...rest] = signed.entries;
    const segments = rest.slice(0, -1).map((e) => e.bytes);
    for (const s of segments) expect((await fragmentVerdict(init!.bytes, s, rootPem)).state).to.equal('Trusted');
    const changed = Buffer.from(segments[3]!);
    changed[changed.length - 20]! ^= 0x40;
    const states = await Promise.all(segments.map((s, i) => fragmentVerdict(init!.bytes, i === 3 ? changed : s, rootPem)));
    expect(states.map((s) => s.state)).to.deep.equal(['Trusted', 'Trusted', 'Trusted', 'Invalid', 'Trusted']);
  });

  it('the download is the same bytes each time, with its size announced', async () => {
    const res = await request(api.app).get(new URL(signed.job.signed_file.download_url).pathname).set(bearer(a.access)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (d: Buffer) => parts.push(d));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    expect(res.headers['content-type']).to.equal('application/zip');
    expect(res.headers['content-disposition']).to.equal('attachment; filename="init-0-signed.zip"');
    expect(Number(res.headers['content-length'])).to.equal(signed.zip.length);
    expect((res.body as Buffer).equals(signed.zip)).to.equal(true);
  });

  it('signed-in verify answers one verdict per segment: all Trusted, then one changed segment Invalid alone', async () => {
    const [init, ...rest] = signed.entries;
    const segments = rest.slice(0, -1).map((e, i) => ({ name: dash.segments[i]!.name, bytes: e.bytes }));
    const good = (await verify(a, { init: { name: 'init-0.m4s', bytes: init!.bytes }, segments }).expect(200)).body;
    expect(good.validation_state, JSON.stringify(good.status)).to.equal('Trusted');
    expect(good.signer.trust_source).to.equal('service_ca');
    expect(good.manifest).to.deep.include({ title: 'Evening news' });
    expect(good.anchor.status).to.not.equal('not_anchored');
    expect(good.fragments.map((f: { validation_state: string }) => f.validation_state)).to.deep.equal(Array(5).fill('Trusted'));
    expect(good.fragments[0].status.success).to.include('assertion.bmffHash.match');

    const changed = Buffer.from(segments[1]!.bytes);
    changed[changed.length - 20]! ^= 0x40;
    const bad = (await verify(a, { init: { name: 'init-0.m4s', bytes: init!.bytes }, segments: segments.map((s, i) => (i === 1 ? { ...s, bytes: changed } : s)) }).expect(200)).body;
    expect(bad.validation_state).to.equal('Invalid');
    expect(bad.fragments.map((f: { validation_state: string }) => f.validation_state)).to.deep.equal(['Trusted', 'Invalid', 'Trusted', 'Trusted', 'Trusted']);
    expect(bad.fragments[1].status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    expect(bad.fragments[1].filename).to.equal(dash.segments[1]!.name);
    // An unsigned rendition has no manifest.
    expect((await verify(a, dash).expect(200)).body.validation_state).to.equal('none');
  });

  it('refuses with 422 and a reason what cannot be signed as a rendition', async () => {
    const refused = async (r: Parameters<typeof attachRendition>[1], code: string, pattern: RegExp) => {
      const res = await upload(a, r).expect(422);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.message).to.match(pattern);
    };
    const two = { name: 'two.m4s', bytes: Buffer.concat([dash.segments[1]!.bytes, dash.segments[2]!.bytes]) };
    await refused({ init: dash.init, segments: [dash.segments[0]!, two] }, 'fragment_invalid', /fragment 2 \(two\.m4s\) is not one moof followed by one mdat/);
    await refused({ init: dash.init, segments: [hls.segments[0]!] }, 'fragment_mismatch', /from another init segment/);
    await refused({ init: dash.init, segments: [dash.segments[1]!, dash.segments[0]!] }, 'fragments_out_of_order', /in order/);
    const byteRanges = { name: 'ranged.m3u8', bytes: Buffer.from('#EXTM3U\n#EXT-X-MAP:URI="init.mp4",BYTERANGE="800@0"\n#EXT-X-BYTERANGE:1000@800\nall.mp4\n') };
    await refused({ init: dash.init, segments: dash.segments, playlist: byteRanges }, 'playlist_invalid', /byte ranges/);
    // An init segment without mvex: a plain MP4's.
    const plain = await upload(a, { init: { name: 'clip.mp4', bytes: await plainMp4(dir) }, segments: dash.segments }).expect(422);
    expect(plain.body.error.code).to.equal('init_segment_invalid');
    expect(plain.body.error.message).to.match(/no mvex box/);
    // Parts missing, named twice, or mixed with a single file: 400.
    expect((await upload(a, { init: dash.init, segments: [] }).expect(400)).body.error.code).to.equal('fragment_required');
    expect((await upload(a, { init: dash.init, segments: [dash.segments[0]!, dash.segments[0]!] }).expect(400)).body.error.code).to.equal('duplicate_part_name');
    const mixed = await upload(a, dash).attach('file', dash.init.bytes, 'x.mp4').expect(400);
    expect(mixed.body.error.code).to.equal('mixed_parts');
  });

  it('another organisation sees none of it', async () => {
    const up = (await upload(a, dash).expect(201)).body;
    await request(api.app).post('/v1/media/sign').set(bearer(b.access)).send({ upload_id: up.upload_id, manifest: { title: 't', creator: 'c' } }).expect(404);
    await request(api.app).get(new URL(signed.job.signed_file.download_url).pathname).set(bearer(b.access)).expect(404);
    const listed = (await request(api.app).get('/v1/media/uploads').set(bearer(b.access)).expect(200)).body.uploads;
    expect(listed).to.deep.equal([]);
  });
});

/** A plain (not fragmented) MP4: a moov without mvex. */
async function plainMp4(dir: string): Promise<Buffer> {
  const file = path.join(dir, 'plain.mp4');
  await promisify(execFile)('ffmpeg', ['-hide_banner', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=1', '-c:v', 'libx264', '-preset', 'ultrafast', file]);
  return readFile(file);
}
