/**
 * Fragmented MP4 renditions signed as c2pa-rs's sign_fragmented_files signs them (shared/c2pa/bmff-rendition-sign.ts),
 * judged by c2pa-rs itself (c2pa-wasm's fromBlobFragment, segment by segment) and by ffmpeg playing the signed
 * segments: an ffmpeg DASH rendition (init + 5 segments) and an HLS/CMAF one (video and audio muxed) read Trusted
 * segment by segment, a changed byte in segment k is Invalid for k alone, the init segment carries the Merkle tree as
 * c2pa-rs writes it and each segment its `merkle` box right before its moof; trees whose kept row is not the root
 * (over 32 segments) and of a single segment; the service's own check agrees with c2pa-rs; renditions that cannot be
 * signed so are refused with a reason.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { segmentCheck } from '../../shared/c2pa/bmff-fragment-check.js';
import { merkleMapOf } from '../../shared/c2pa/bmff-merkle-box.js';
import { activeBmffHash, embeddedBmffManifest } from '../../shared/c2pa/bmff-read.js';
import { RenditionRejectedError } from '../../shared/c2pa/bmff-rendition-check.js';
import { signRendition, type SignedRendition } from '../../shared/c2pa/bmff-rendition-sign.js';
import { C2PA_UUID } from '../../shared/c2pa/bmff-walk.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { boxesOf, findBoxes } from './bmff-files.js';
import { fragmentVerdict, makeDashRendition, makeHlsRendition, type RenditionFiles } from './renditions.js';

const run = promisify(execFile);

describe('c2pa: fragmented MP4 renditions signed', function () {
  this.timeout(180_000);
  let chain: OpensslChain;
  let dir: string;
  let dash: RenditionFiles;
  let hls: RenditionFiles;
  let signedDash: { init: Buffer; segments: Buffer[]; signed: SignedRendition };
  let runs = 0;

  /** Writes the rendition's parts to a fresh directory and signs them through signRendition. */
  async function sign(rendition: Pick<RenditionFiles, 'init' | 'segments'>, options: { thumbnail?: boolean } = {}) {
    runs += 1;
    const work = path.join(dir, `run-${runs}`);
    const out = path.join(work, 'out');
    mkdirSync(out, { recursive: true });
    const part = (p: { name: string; bytes: Buffer }) => {
      const file = path.join(work, p.name);
      writeFileSync(file, p.bytes);
      return { path: file, name: p.name };
    };
    const signed = await signRendition(
      {
        init: part(rendition.init),
        segments: rendition.segments.map(part),
        outputDir: out,
        mimeType: 'video/mp4',
        manifest: (has) => buildManifestDefinition({ title: 'Rendition', creator: 'Ada Lovelace', thumbnail: options.thumbnail }, { sourceHasManifest: has }),
        key: chain.keys.leaf,
        chainDer: [chain.der.leaf, chain.der.subCa],
        ffmpegPath: 'ffmpeg',
      },
      'video/mp4',
    );
    return { init: readFileSync(signed.init.path), segments: signed.segments.map((s) => readFileSync(s.path)), signed };
  }
  const verdict = (init: Buffer, segment: Buffer) => fragmentVerdict(init, segment, chain.pem.root);
  const flipped = (segment: Buffer) => {
    const copy = Buffer.from(segment);
    copy[copy.length - 10]! ^= 0x01;
    return copy;
  };
  /** Where a sidx's first_offset (after reference_ID, timescale and earliest_presentation_time) says its media starts. */
  const sidxTarget = (segment: Buffer, sidx: { offset: number; size: number }) => {
    const wide = segment[sidx.offset + 8] === 1;
    const at = sidx.offset + 20 + (wide ? 8 : 4);
    return sidx.offset + sidx.size + (wide ? Number(segment.readBigUInt64BE(at)) : segment.readUInt32BE(at));
  };
  /** ffmpeg decodes every frame of the init segment followed by the segments. */
  async function expectPlayable(init: Buffer, segments: Buffer[]): Promise<void> {
    const joined = path.join(dir, `joined-${(runs += 1)}.mp4`);
    writeFileSync(joined, Buffer.concat([init, ...segments]));
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', joined, '-f', 'null', '-']);
    expect(stderr).to.equal('');
  }

  before(async function () {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-rendition-'));
    chain = await makeOpensslChain({ cn: 'Rendition Desk' });
    [dash, hls] = await Promise.all([makeDashRendition(dir), makeHlsRendition(dir)]);
    expect(dash.segments).to.have.length(5);
    signedDash = await sign(dash, { thumbnail: true });
  });
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an ffmpeg DASH rendition (init + 5 segments): c2pa-rs reads every segment Trusted; ffmpeg plays it', async function () {
    for (const segment of signedDash.segments) {
      const got = await verdict(signedDash.init, segment);
      expect(got.state, JSON.stringify(got.failures)).to.equal('Trusted');
      expect(got.bmff).to.deep.equal(['assertion.bmffHash.match']);
    }
    await expectPlayable(signedDash.init, signedDash.segments);
  });

  it('a changed byte in segment k reads Invalid for k alone', async function () {
    for (const k of [0, 2, 4]) {
      const states = await Promise.all(signedDash.segments.map((s, i) => verdict(signedDash.init, i === k ? flipped(s) : s)));
      states.forEach((got, i) => {
        if (i === k) {
          expect(got.state).to.equal('Invalid');
          expect(got.failures).to.include('assertion.bmffHash.mismatch');
        } else expect(got.state).to.equal('Trusted');
      });
    }
  });

  it('the init segment carries c2pa.hash.bmff.v3 with the Merkle tree as c2pa-rs writes it, and no file-level hash', async function () {
    const embedded = await embeddedBmffManifest(signedDash.signed.init.path);
    expect(embedded).to.have.property('store');
    const found = await activeBmffHash((embedded as { store: Uint8Array }).store);
    expect(found?.options.version).to.equal(3);
    const assertion = found!.assertion as { hash?: unknown; merkle: { uniqueId: number; localId: number; count: number; alg: string; initHash: number[]; hashes: number[][] }[] };
    expect(assertion.hash).to.equal(undefined);
    expect(assertion.merkle).to.have.length(1);
    const [tree] = assertion.merkle;
    expect(tree).to.deep.include({ uniqueId: 1, localId: 1, count: 5, alg: 'sha256' });
    expect(tree!.initHash).to.have.length(32);
    // 5 leaves: layers of 5, 3, 2 and 1; with up to 5 proof steps the root is the row kept.
    expect(tree!.hashes).to.have.length(1);
    // Where c2pa-rs puts it: after ftyp, then the free box filling the rest of the room; the init's other boxes follow.
    expect(boxesOf(signedDash.init).map((b) => b.type)).to.deep.equal(['ftyp', 'uuid', 'free', ...boxesOf(dash.init.bytes).map((b) => b.type).slice(1)]);
    expect(signedDash.signed.init.size).to.equal(signedDash.init.length);
  });

  it('each segment carries its merkle box right before its moof, with its place and proof; sidx still finds the moof', async function () {
    signedDash.segments.forEach((segment, location) => {
      const source = dash.segments[location]!.bytes;
      const boxes = boxesOf(segment);
      const types = boxes.map((b) => b.type);
      expect(types).to.deep.equal(['styp', 'sidx', 'uuid', 'moof', 'mdat']);
      const uuid = boxes[2]!;
      expect(segment.subarray(uuid.offset + 8, uuid.offset + 24).equals(C2PA_UUID)).to.equal(true);
      expect(segment.toString('latin1', uuid.offset + 28, uuid.offset + 35)).to.equal('merkle\0');
      const map = merkleMapOf(segment.subarray(uuid.offset + 35, uuid.offset + uuid.size));
      expect(map).to.deep.include({ uniqueId: 1, localId: 1, location });
      expect(map!.hashes!.length).to.be.within(1, 3);
      // The media itself is untouched, after the inserted box.
      expect(segment.subarray(boxes[3]!.offset).equals(source.subarray(boxesOf(source)[2]!.offset))).to.equal(true);
      // The sidx's first_offset still reaches the moof.
      expect(sidxTarget(segment, boxes[1]!)).to.equal(boxes[3]!.offset);
    });
    expect(signedDash.signed.segments.map((s) => s.size)).to.deep.equal(signedDash.segments.map((s) => s.length));
  });

  it("the service's own check agrees with c2pa-rs on every segment, changed or not", async function () {
    const store = ((await embeddedBmffManifest(signedDash.signed.init.path)) as { store: Uint8Array }).store;
    const found = (await activeBmffHash(store))!;
    const check = (await segmentCheck(signedDash.signed.init.path, found.assertion, found.options))!;
    const work = path.join(dir, 'own-check');
    mkdirSync(work, { recursive: true });
    for (const [i, segment] of signedDash.segments.entries()) {
      for (const bytes of [segment, flipped(segment)]) {
        const file = path.join(work, `s${i}`);
        writeFileSync(file, bytes);
        const ours = await check(file);
        const theirs = await verdict(signedDash.init, bytes);
        expect(ours, `segment ${i}`).to.equal(theirs.bmff.includes('assertion.bmffHash.match'));
      }
    }
    // A segment signed in another rendition (another tree, another place in it) is not one of these.
    const other = await sign({ init: dash.init, segments: [dash.segments[2]!, dash.segments[3]!] });
    const file = path.join(work, 'foreign');
    writeFileSync(file, other.segments[0]!);
    expect(await check(file)).to.equal(false);
    expect((await verdict(signedDash.init, other.segments[0]!)).state).to.equal('Invalid');
  });

  it('an HLS/CMAF rendition (video and audio muxed, two sidx per segment): Trusted segment by segment; ffmpeg plays its playlist', async function () {
    const signed = await sign(hls);
    for (const segment of signed.segments) expect((await verdict(signed.init, segment)).state).to.equal('Trusted');
    await expectPlayable(signed.init, signed.segments);
    const played = path.join(dir, 'hls-played');
    mkdirSync(played);
    writeFileSync(path.join(played, 'index.m3u8'), hls.playlist.bytes);
    writeFileSync(path.join(played, 'init.mp4'), signed.init);
    signed.segments.forEach((s, i) => writeFileSync(path.join(played, hls.segments[i]!.name), s));
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', path.join(played, 'index.m3u8'), '-f', 'null', '-']);
    expect(stderr).to.equal('');
    // Both sidx boxes still reach the moof.
    const boxes = boxesOf(signed.segments[0]!);
    const moof = boxes.find((b) => b.type === 'moof')!;
    for (const sidx of boxes.filter((b) => b.type === 'sidx')) expect(sidxTarget(signed.segments[0]!, sidx)).to.equal(moof.offset);
  });

  it('40 segments (the kept row is not the root) and a single segment (no proof) read Trusted', async function () {
    const many = await makeDashRendition(dir, { seconds: 8, segmentSeconds: 0.2, name: 'many' });
    expect(many.segments.length).to.be.above(32);
    const signed = await sign(many);
    const assertion = (await activeBmffHash(((await embeddedBmffManifest(signed.signed.init.path)) as { store: Uint8Array }).store))!.assertion as { merkle: { hashes: unknown[] }[] };
    expect(assertion.merkle[0]!.hashes.length).to.be.above(1);
    for (const k of [0, 17, many.segments.length - 1]) expect((await verdict(signed.init, signed.segments[k]!)).state, `segment ${k}`).to.equal('Trusted');
    expect((await verdict(signed.init, flipped(signed.segments[17]!))).state).to.equal('Invalid');

    const one = await sign({ init: dash.init, segments: [dash.segments[0]!] });
    const box = boxesOf(one.segments[0]!)[2]!;
    const map = merkleMapOf(one.segments[0]!.subarray(box.offset + 35, box.offset + box.size));
    expect(map?.hashes).to.equal(null);
    expect((await verdict(one.init, one.segments[0]!)).state).to.equal('Trusted');
  });

  describe('refused with a reason', function () {
    async function refusal(rendition: Pick<RenditionFiles, 'init' | 'segments'>): Promise<RenditionRejectedError> {
      try {
        await sign(rendition);
      } catch (err) {
        expect(err).to.be.instanceOf(RenditionRejectedError);
        return err as RenditionRejectedError;
      }
      throw new Error('signed');
    }

    it('a segment that is not one moof followed by one mdat', async function () {
      const two = { name: 'two.m4s', bytes: Buffer.concat([dash.segments[1]!.bytes, dash.segments[2]!.bytes]) };
      const err = await refusal({ init: dash.init, segments: [dash.segments[0]!, two] });
      expect(err.code).to.equal('fragment_invalid');
      expect(err.message).to.match(/fragment 2 \(two\.m4s\) is not one moof followed by one mdat/);
    });

    it('an init segment with no mvex (a plain MP4)', async function () {
      const plain = path.join(dir, 'plain.mp4');
      await run('ffmpeg', ['-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=25:duration=1', '-c:v', 'libx264', '-preset', 'ultrafast', plain]);
      const err = await refusal({ init: { name: 'plain.mp4', bytes: readFileSync(plain) }, segments: dash.segments });
      expect(err.code).to.equal('init_segment_invalid');
      expect(err.message).to.match(/no mvex box/);
    });

    it('segments from another init segment (tracks it does not have), and out of order', async function () {
      const foreign = await refusal({ init: dash.init, segments: [hls.segments[0]!] });
      expect(foreign.code).to.equal('fragment_mismatch');
      expect(foreign.message).to.match(/track 2/);
      const swapped = await refusal({ init: dash.init, segments: [dash.segments[0]!, dash.segments[2]!, dash.segments[1]!] });
      expect(swapped.code).to.equal('fragments_out_of_order');
      expect(swapped.message).to.match(/fragment 3/);
    });

    it('a rendition already signed', async function () {
      const err = await refusal({ init: { name: 'init.m4s', bytes: signedDash.init }, segments: signedDash.segments.map((bytes, i) => ({ name: `s${i}.m4s`, bytes })) });
      expect(err.code).to.equal('rendition_already_signed');
      const segmentsOnly = await refusal({ init: dash.init, segments: [{ name: 's.m4s', bytes: signedDash.segments[0]! }] });
      expect(segmentsOnly.code).to.equal('rendition_already_signed');
      expect(findBoxes(signedDash.segments[0]!, 'moof')).to.have.length(1);
    });
  });
});
