import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { open, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { writeZip } from '../support/zip-writer.js';
import request from 'supertest';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { sniffMediaType } from '../../shared/c2pa/media-type.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { webFormatsModule } from '../../api/web-app.js';
import { identifyMedia, identifyMediaBytes, MEDIA_FORMATS } from '../../shared/media/formats.js';
import { MAX_BMFF_BOXES, MAX_BMFF_DEPTH, maxBmffBoxes } from '../../shared/media/walks/bmff.js';
import { SVG_MAX_BYTES } from '../../shared/media/walks/svg.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslChain } from '../support/openssl-chain.js';
import { DAMAGE, makeSamples, mp3Frame, rejection, SVG_SAMPLE, topLevelBoxes, withBytes, type Samples } from './samples.js';

const GiB = 1024 ** 3;

/** `count` empty ISO BMFF boxes of `type`. */
const emptyBoxes = (count: number, type: string) => {
  const out = Buffer.alloc(count * 8);
  for (let i = 0; i < count; i += 1) {
    out.writeUInt32BE(8, i * 8);
    out.write(type, i * 8 + 4, 'latin1');
  }
  return out;
};

/** The boxes inside a container, all levels (the containers the bounds count). */
async function boxesUnder(file: Buffer, box: { at: number; size: number }): Promise<number> {
  let n = 0;
  for (let at = box.at + 8; at + 8 <= box.at + box.size; ) {
    const size = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    n += 1;
    if (['trak', 'mdia', 'minf', 'stbl', 'edts', 'udta', 'dinf', 'mvex', 'meta'].includes(type)) n += await boxesUnder(file, { at: type === 'meta' ? at + 4 : at, size: type === 'meta' ? size - 4 : size });
    at += size;
  }
  return n;
}

/** The MP4 with `inner` wrapped in boxes of `types` (outermost first), put at the end of its moov (the last box). */
function nestedIn(mp4: Buffer, types: string[], inner: Buffer): Buffer {
  const moov = topLevelBoxes(mp4).find((b) => b.type === 'moov')!;
  const wrapped = types.reduceRight((body, type) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  }, inner);
  const out = Buffer.concat([mp4.subarray(0, moov.at + moov.size), wrapped, mp4.subarray(moov.at + moov.size)]);
  out.writeUInt32BE(moov.size + wrapped.length, moov.at);
  return out;
}
const THIS_FILE = fileURLToPath(import.meta.url);

describe('media: formats recognised by content, structure walks', function () {
  this.timeout(60_000);
  let samples: Samples;
  let dir: string;
  const file = async (name: string, bytes: Buffer | string) => {
    const p = path.join(dir, name);
    await writeFile(p, bytes);
    return p;
  };

  before(async function () {
    ({ samples, dir } = await makeSamples());
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('the registry', function () {
    it("Verify's file pickers accept every format of the registry, by type and by extension", async function () {
      // The pages import the registry as the server renders it (/app/formats.js) and build their accept lists from it.
      const served = await import(`data:text/javascript,${encodeURIComponent(webFormatsModule())}`) as { MEDIA_FORMATS: { mimeType: string; extensions: string[] }[] };
      const types = served.MEDIA_FORMATS.map((f) => f.mimeType);
      const extensions = served.MEDIA_FORMATS.flatMap((f) => f.extensions);
      expect([...types].sort()).to.deep.equal(MEDIA_FORMATS.map((f) => f.mimeType).sort());
      expect([...extensions].sort()).to.deep.equal(MEDIA_FORMATS.flatMap((f) => f.extensions).sort());
      const verifyJs = readFileSync(new URL('../../web/app/verify.js', import.meta.url), 'utf8');
      expect(verifyJs).to.match(/import \{ MEDIA_FORMATS \} from '\.\/formats\.js';/);
      // Every media format, and manifest stores (.c2pa sidecars) besides.
      expect(verifyJs).to.match(/VERIFY_ACCEPT = `\$\{acceptList\(MEDIA_FORMATS\)\},\.c2pa,application\/c2pa`/);
      expect(verifyJs).to.match(/accept: VERIFY_ACCEPT/);
      const publicJs = readFileSync(new URL('../../web/app/public-verify.js', import.meta.url), 'utf8');
      expect(publicJs).to.match(/accept: VERIFY_ACCEPT/);
      expect(publicJs).to.match(/VERIFIABLE_TYPES\.includes\(kind\.type\)/);
    });
  });

  describe('identifyMedia', function () {
    it('a PNG named .mp4 is a PNG; an MP4 named .png is an MP4', async function () {
      expect((await identifyMedia(await file('holiday.mp4', samples['image/png']))).mimeType).to.equal('image/png');
      expect((await identifyMedia(await file('photo.png', samples['video/mp4']))).mimeType).to.equal('video/mp4');
    });

    it('tells HEIC, HEIF and AVIF apart by the ftyp brands', function () {
      expect(identifyMediaBytes(samples['image/avif']).mimeType).to.equal('image/avif');
      expect(identifyMediaBytes(samples['image/heic']).mimeType).to.equal('image/heic');
      expect(identifyMediaBytes(samples['image/heif']).mimeType).to.equal('image/heif');
      expect(identifyMediaBytes(samples['video/mp4']).mimeType).to.equal('video/mp4');
      expect(identifyMediaBytes(samples['audio/mp4']).mimeType).to.equal('audio/mp4');
    });

    it('the empty file is empty; other content is unsupported, with the accepted formats in the message', async function () {
      expect((await rejection(await file('empty.jpg', '')))?.reason).to.equal('empty');
      const others: [string, Buffer][] = [
        ['text named .webp', Buffer.from('hello, this is not an image\n')],
        ['a BMP', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)])],
        ['a plain ZIP', writeZip([{ name: 'notes.txt', data: 'notes' }])],
        ['an HTML page', Buffer.from('<!DOCTYPE html><html><body><svg></svg></body></html>')],
        ['XML that is not SVG', Buffer.from('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>')],
        ['a RIFF of another form', Buffer.concat([Buffer.from('RIFF\x04\x00\x00\x00RMID', 'latin1')])],
        ['ISO media of another brand (Canon CR3)', withBytes(samples['video/mp4'], 8, 'crx ')],
        ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251))],
        ['an ID3 tag in front of something else', Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(10), Buffer.from('just some text after the tag')])],
      ];
      for (const [label, bytes] of others) {
        const err = await rejection(await file('other.webp', bytes));
        expect(err?.reason, label).to.equal('unsupported');
        expect(err?.message, label).to.match(/not supported|accepted: JPEG, PNG, WebP/);
        expect(sniffMediaType(bytes), label).to.equal(undefined);
      }
    });

    it('gives clear messages: a truncated MP4 box, a WAV whose RIFF size is wrong, a broken MP3 frame sequence', async function () {
      const mp4 = samples['video/mp4'];
      const mdat = topLevelBoxes(mp4).find((b) => b.type === 'mdat')!;
      const cutMp4 = await rejection(await file('cut.mp4', mp4.subarray(0, mdat.at + Math.floor(mdat.size / 2))));
      expect(cutMp4?.message).to.match(/^the MP4 file is truncated: box "mdat" at byte \d+ claims \d+ bytes, only \d+ remain$/);
      const wav = samples['audio/wav'];
      const longer = await rejection(await file('long.wav', Buffer.concat([wav, Buffer.alloc(100)])));
      expect(longer?.message).to.equal('the WAV file has 100 bytes after the end of its RIFF chunk');
      const mp3 = await rejection(await file('broken.mp3', DAMAGE['audio/mpeg'][1](samples['audio/mpeg'])));
      expect(mp3?.message).to.match(/^the MP3 frame sequence is broken at byte \d+$/);
    });

    it('MP3: without ID3v2, with an ID3v1 tag at the end; the Xing byte count finds a cut at a frame boundary', async function () {
      const mp3 = samples['audio/mpeg'];
      const bare = mp3.subarray(mp3Frame(mp3, 0));
      const id3v1 = Buffer.concat([bare, Buffer.from('TAG'), Buffer.alloc(125, 0x20)]);
      expect((await identifyMedia(await file('bare.mp3', bare))).mimeType).to.equal('audio/mpeg');
      expect((await identifyMedia(await file('v1.mp3', id3v1))).mimeType).to.equal('audio/mpeg');
      const atBoundary = mp3.subarray(0, mp3Frame(mp3, 5));
      expect((await rejection(await file('boundary.mp3', atBoundary)))?.message).to.match(/^the MP3 is truncated: its header declares \d+ bytes of audio, \d+ are there$/);
    });

    it('SVG: entity declarations are refused, a non-SVG root is not SVG, and there is a size bound', async function () {
      const entities = Buffer.from('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>');
      expect((await rejection(await file('entities.svg', entities)))?.reason).to.equal('unsupported');
      const twoRoots = Buffer.concat([SVG_SAMPLE, Buffer.from('<svg></svg>\n')]);
      expect((await rejection(await file('two.svg', twoRoots)))?.message).to.equal('the SVG has more than one root element');
      const huge = Buffer.concat([Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">'), Buffer.alloc(SVG_MAX_BYTES, 0x20), Buffer.from('</svg>')]);
      const err = await rejection(await file('huge.svg', huge));
      expect(err?.reason).to.equal('too_large');
    });
  });

  describe('large files are never read whole', function () {
    /** A 2 GiB sparse MP4: the sample's ftyp and moov, then an mdat header (64-bit size) over the rest of the file. */
    async function sparseMp4(name: string, mdatSize: (mdatAt: number) => bigint, total = 2 * GiB): Promise<string> {
      const mp4 = samples['video/mp4'];
      const boxes = topLevelBoxes(mp4);
      const pick = (type: string) => { const b = boxes.find((x) => x.type === type)!; return mp4.subarray(b.at, b.at + b.size); };
      const head = Buffer.concat([pick('ftyp'), pick('moov')]);
      const mdat = Buffer.alloc(16);
      mdat.writeUInt32BE(1);
      mdat.write('mdat', 4, 'latin1');
      mdat.writeBigUInt64BE(mdatSize(head.length), 8);
      const p = path.join(dir, name);
      await writeFile(p, Buffer.concat([head, mdat]));
      await truncate(p, total);
      return p;
    }

    /** Counts the bytes FileHandle.read returns while `fn` runs. */
    async function bytesRead<T>(fn: () => Promise<T>): Promise<[T, number]> {
      const probe = await open(THIS_FILE, 'r');
      const proto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<{ bytesRead: number }> };
      await probe.close();
      const original = proto.read;
      let total = 0;
      proto.read = async function (this: unknown, ...args: unknown[]) {
        const result = await original.apply(this, args);
        total += result.bytesRead;
        return result;
      };
      try {
        return [await fn(), total];
      } finally {
        proto.read = original;
      }
    }

    it(`ISO BMFF files of more than ${MAX_BMFF_BOXES} boxes, or nested deeper than ${MAX_BMFF_DEPTH}, are too_complex whether or not the structure is checked`, async function () {
      const mp4 = samples['video/mp4'];
      const own = topLevelBoxes(mp4).length;
      const moov = topLevelBoxes(mp4).find((b) => b.type === 'moov')!;
      const inMoov = (await boxesUnder(mp4, moov)) + 1;
      const withFree = (count: number) => Buffer.concat([mp4, emptyBoxes(count, 'free')]);
      // The sample's own boxes (top level and inside moov's containers) count too: at the limit it is an MP4.
      const atLimit = await file('at-limit.mp4', withFree(MAX_BMFF_BOXES - own - inMoov + 1));
      expect((await identifyMedia(atLimit)).mimeType).to.equal('video/mp4');
      for (const [what, bytes] of [
        ['one box more', withFree(MAX_BMFF_BOXES - own - inMoov + 2)],
        ['600,000 four-byte boxes', Buffer.concat([mp4, Buffer.alloc(600_000 * 4).fill(Buffer.from([0, 0, 0, 4])), emptyBoxes(1, 'free')])],
        ['100,000 boxes inside udta', nestedIn(mp4, ['udta'], emptyBoxes(100_000, 'junk'))],
      ] as const) {
        for (const checkStructure of [true, false]) {
          const err = await rejection(await file('many.mp4', bytes), checkStructure);
          expect(err, `${what}, checkStructure ${checkStructure}`).to.deep.include({ reason: 'too_complex', code: 'media_too_complex', kind: 'unprocessable' });
          expect(err!.message).to.equal(`the MP4 file has more than ${MAX_BMFF_BOXES.toLocaleString('en-US')} boxes, more than the service reads`);
        }
      }
      const deep = nestedIn(mp4, Array.from({ length: MAX_BMFF_DEPTH }, () => 'udta'), emptyBoxes(1, 'junk'));
      const err = await rejection(await file('deep.mp4', deep), false);
      expect(err?.message).to.equal(`the MP4 file nests boxes more than ${MAX_BMFF_DEPTH} deep, more than the service reads`);
      expect(await rejection(await file('deep-ok.mp4', nestedIn(mp4, Array.from({ length: MAX_BMFF_DEPTH - 2 }, () => 'udta'), emptyBoxes(1, 'junk'))), false)).to.equal(undefined);
    });

    it('a consistent 2 GiB MP4 (64-bit mdat size) is identified reading a few hundred KiB', async function () {
      const p = await sparseMp4('big.mp4', (at) => BigInt(2 * GiB - at));
      const [found, read] = await bytesRead(() => identifyMedia(p));
      expect(found.mimeType).to.equal('video/mp4');
      expect(read).to.be.above(0).and.below(1024 * 1024);
    });

    it('a long recording may have more boxes than a small file: one more per 64 KiB beyond 625 MiB (a 2 GiB MP4: 32,768)', async function () {
      expect(maxBmffBoxes(50 * 1024 * 1024)).to.equal(MAX_BMFF_BOXES);
      expect(maxBmffBoxes(2 * GiB)).to.equal(32_768);
      const mp4 = samples['video/mp4'];
      const boxes = topLevelBoxes(mp4);
      const pick = (type: string) => { const b = boxes.find((x) => x.type === type)!; return mp4.subarray(b.at, b.at + b.size); };
      // 20,000 boxes ahead of one mdat running to the end of a 2 GiB (sparse) file, as fragments' headers would be.
      const head = Buffer.concat([pick('ftyp'), pick('moov'), emptyBoxes(20_000, 'free')]);
      const mdat = Buffer.alloc(16);
      mdat.writeUInt32BE(1);
      mdat.write('mdat', 4, 'latin1');
      mdat.writeBigUInt64BE(BigInt(2 * GiB - head.length), 8);
      const long = path.join(dir, 'long.mp4');
      await writeFile(long, Buffer.concat([head, mdat]));
      await truncate(long, 2 * GiB);
      expect((await identifyMedia(long)).mimeType).to.equal('video/mp4');
      // The same boxes in a small file are refused.
      const err = await rejection(await file('short.mp4', Buffer.concat([mp4, emptyBoxes(20_000, 'free')])), false);
      expect(err).to.deep.include({ code: 'media_too_complex' });
    });

    it('a 2 GiB MP4 whose mdat claims 3 GiB is truncated, found reading as little', async function () {
      const p = await sparseMp4('cut.mp4', (at) => BigInt(3 * GiB - at));
      const [err, read] = await bytesRead(() => rejection(p));
      expect(err?.reason).to.equal('corrupt');
      expect(err?.message).to.match(/truncated: box "mdat"/);
      expect(read).to.be.below(1024 * 1024);
    });

    it('a 2 GiB WAV (one data chunk) is identified reading a few hundred KiB', async function () {
      const wav = samples['audio/wav'];
      const dataAt = wav.indexOf('data', 12, 'latin1');
      const head = Buffer.from(wav.subarray(0, dataAt + 8));
      head.writeUInt32LE(2 * GiB - 8, 4);
      head.writeUInt32LE(2 * GiB - dataAt - 8, dataAt + 4);
      const p = path.join(dir, 'big.wav');
      const fd = openSync(p, 'w');
      writeSync(fd, head);
      closeSync(fd);
      await truncate(p, 2 * GiB);
      const [found, read] = await bytesRead(() => identifyMedia(p));
      expect(found.mimeType).to.equal('audio/wav');
      expect(read).to.be.below(1024 * 1024);
    });
  });

  describe('through the API', function () {
    let api: TestApi;
    let account: Account;
    const upload = (bytes: Buffer, filename: string) =>
      request(api.app).post('/v1/media/upload').set(bearer(account.access)).attach('file', bytes, { filename, contentType: 'application/octet-stream' });

    before(async function () {
      api = await startTestApi({ PUBLIC_RATE_LIMIT: '10000' });
      // Verification judges against the service's roots: they must exist.
      await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
      account = await registerAccount(api.app, 'Formats');
    });
    const chainDirs: string[] = [];
    after(async () => {
      await api.close();
      for (const d of chainDirs) rmSync(d, { recursive: true, force: true });
    });

    it('accepts every format by content and stores it under its extension', async function () {
      for (const f of MEDIA_FORMATS) {
        const res = await upload(samples[f.mimeType], 'upload.bin');
        expect(res.status, `${f.label}: ${JSON.stringify(res.body)}`).to.equal(201);
        expect(res.body.mime_type).to.equal(f.mimeType);
        const row = await api.db.knex('uploads').where({ id: res.body.upload_id }).first('storage_key');
        expect(row.storage_key).to.match(new RegExp(`\\.${f.extension}$`));
      }
    });

    it('a PNG named .mp4 is stored as a PNG; a text file named .webp is 415; empty is 400', async function () {
      const png = await upload(samples['image/png'], 'clip.mp4').expect(201);
      expect(png.body).to.include({ mime_type: 'image/png', filename: 'clip.mp4' });
      const text = await upload(Buffer.from('hello, this is not an image\n'), 'photo.webp').expect(415);
      expect(text.body.error.code).to.equal('unsupported_media_type');
      const empty = await upload(Buffer.alloc(0), 'x.mp4').expect(400);
      expect(empty.body.error.code).to.equal('empty_file');
    });

    it('a truncated MP4 (cut in the middle of a box) is 400 corrupt_media; a damaged GIF is 400 corrupt_image; nothing is stored', async function () {
      const count = async () => Number((await api.db.knex('uploads').where({ org_id: account.orgId }).count('* as n'))[0]!.n);
      const n = await count();
      const mp4 = samples['video/mp4'];
      const moov = topLevelBoxes(mp4).find((b) => b.type === 'moov')!;
      const cut = await upload(mp4.subarray(0, moov.at + Math.floor(moov.size / 2)), 'cut.mp4').expect(400);
      expect(cut.body.error.code).to.equal('corrupt_media');
      expect(cut.body.error.message).to.match(/^the MP4 file is truncated/);
      const gif = await upload(DAMAGE['image/gif'][1](samples['image/gif']), 'x.gif').expect(400);
      expect(gif.body.error.code).to.equal('corrupt_image');
      expect(await count()).to.equal(n);
    });

    it('an MP4 of 600,000 boxes is 422 media_too_complex at upload and at verify, with or without a sidecar; nothing is stored', async function () {
      const count = async () => Number((await api.db.knex('uploads').where({ org_id: account.orgId }).count('* as n'))[0]!.n);
      const n = await count();
      const soup = Buffer.concat([samples['video/mp4'], emptyBoxes(600_000, 'junk')]);
      const answers = [
        await upload(soup, 'soup.mp4'),
        await request(api.app).post('/v1/verify').attach('file', soup, 'soup.mp4'),
        await request(api.app).post('/v1/media/verify').set(bearer(account.access)).attach('file', soup, 'soup.mp4'),
        await request(api.app).post('/v1/verify').attach('file', soup, 'soup.mp4').attach('manifest', Buffer.from('0000001a6a756d62000000126a756d6463327061', 'hex'), 'soup.c2pa'),
      ];
      for (const res of answers) {
        expect(res.status, JSON.stringify(res.body)).to.equal(422);
        expect(res.body.error).to.deep.equal({ code: 'media_too_complex', message: `the MP4 file has more than ${MAX_BMFF_BOXES.toLocaleString('en-US')} boxes, more than the service reads` });
      }
      expect(await count()).to.equal(n);
    });

    it('verify (signed in and public) reads every format: unsigned is none, signed has its manifest', async function () {
      const chain = await makeOpensslChain();
      chainDirs.push(chain.dir);
      for (const f of MEDIA_FORMATS) {
        const unsigned = await request(api.app).post('/v1/verify').attach('file', samples[f.mimeType], 'file.bin');
        expect(unsigned.status, `${f.label}: ${JSON.stringify(unsigned.body)}`).to.equal(200);
        expect(unsigned.body).to.include({ validation_state: 'none', mime_type: f.mimeType });
        const signed = await signAsset({
          bytes: samples[f.mimeType],
          mimeType: f.mimeType,
          manifest: buildManifestDefinition({ title: 'T', creator: 'C' }, { sourceHasManifest: false }),
          key: chain.keys.leaf,
          chainDer: [chain.der.leaf, chain.der.subCa],
        });
        const res = await request(api.app).post('/v1/media/verify').set(bearer(account.access)).attach('file', Buffer.from(signed), 'file.bin');
        expect(res.status, `${f.label}: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.body.mime_type).to.equal(f.mimeType);
        expect(res.body.active_manifest, f.label).to.match(/^urn:c2pa:/);
        // Signed by a chain the service does not trust: read, but not Trusted.
        expect(res.body.status.failure, f.label).to.include('signingCredential.untrusted');
      }
    });
  });
});
