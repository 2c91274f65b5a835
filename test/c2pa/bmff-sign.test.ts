/**
 * MP4, MOV, M4V and M4A signed streamed (shared/c2pa/bmff-sign.ts), judged by c2pa-rs reading the whole signed file
 * (the WASM build, which reads small files natively) and by ffmpeg decoding it (so the moved offsets still find the
 * media): Trusted with assertion.bmffHash.match for every format and for the shapes large files take (a 64-bit mdat
 * size, co64 tables, offsets pushed past 4 GiB, fragments with moof/tfhd and mfra/tfra, moov first), a file that
 * already carries a manifest (signed by c2pa-rs or by this path) re-signed with it as parent ingredient, the asset
 * rubrics clean; a flipped mdat byte and an offset put back unmoved read Invalid with assertion.bmffHash.mismatch.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildManifestDefinition, type ManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { claimThumbnailOfStore, readAsset } from '../../shared/c2pa/read-asset.js';
import { CLAIM_THUMBNAIL_ROOM_BYTES, signBmffFile, THUMBNAIL_ALONGSIDE_FROM_BYTES, type ThumbnailRoom } from '../../shared/c2pa/bmff-sign.js';
import type { VerificationReport } from '../../shared/c2pa/verification-report.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { SourceManifestConflictError } from '../../shared/c2pa/sign-options.js';
import { signingSettings, trustSettings } from '../../shared/c2pa/settings.js';
import { BmffUnsignableError } from '../../shared/c2pa/bmff-c2pa-boxes.js';
import { activeBmffHash } from '../../shared/c2pa/bmff-read.js';
import { checkSignedFile, checkWrittenBody } from '../../shared/c2pa/bmff-signed-check.js';
import { digestOf } from '../../shared/c2pa/data-hash.js';
import { C2paError } from '../../shared/c2pa/errors.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { loadRubric, unmet } from '../support/asset-rubric.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';
import { boxesOf, chunkOffsets, CLIPS, findBoxes, makeClip, withCo64, withFlippedMediaByte, withLargesizeMdat, withOffsetsNear4GiB, type ClipName } from './bmff-files.js';

const run = promisify(execFile);

describe('c2pa: BMFF files signed streamed', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let desk: BindingDesk;
  let dir: string;
  const clips = {} as Record<ClipName, Buffer>;
  let written = 0;

  const onDisk = (bytes: Buffer) => {
    written += 1;
    const file = path.join(dir, `source-${written}`);
    writeFileSync(file, bytes);
    return file;
  };
  const definition = (has: boolean, extra: { thumbnail?: boolean } = {}): ManifestDefinition => buildManifestDefinition({ title: 'Clip', creator: 'Ada Lovelace', ...extra }, { sourceHasManifest: has });
  /** Signs through signFile (the worker's path) and returns the signed file and its manifest store. */
  async function sign(bytes: Buffer, mimeType: SignableMimeType, options: { thumbnail?: boolean; trustAnchorsPem?: string } = {}) {
    const sourcePath = onDisk(bytes);
    const outputPath = `${sourcePath}.signed`;
    const signed = await signFile({
      sourcePath,
      outputPath,
      mimeType,
      manifest: (has) => definition(has, { thumbnail: options.thumbnail }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      ffmpegPath: 'ffmpeg',
      trustAnchorsPem: options.trustAnchorsPem,
    });
    const file = readFileSync(outputPath);
    expect(signed.size).to.equal(file.length);
    return { file, signed };
  }
  /** c2pa-rs's reading of the whole file, with this desk's root and the c2pa-rs desk's (whose files are re-signed here). */
  const read = (file: Buffer, mimeType: SignableMimeType): Promise<VerificationReport> => readAsset(file, mimeType, { trustAnchorsPem: [chain.pem.root, desk.rootPem] });
  async function expectTrusted(file: Buffer, mimeType: SignableMimeType): Promise<VerificationReport> {
    const report = await read(file, mimeType);
    expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
    expect(report.status.success).to.include('assertion.bmffHash.match');
    return report;
  }
  async function expectMismatch(file: Buffer, mimeType: SignableMimeType): Promise<void> {
    const report = await read(file, mimeType);
    expect(report.validation_state).to.equal('Invalid');
    expect(report.status.failure).to.include('assertion.bmffHash.mismatch');
  }
  /** ffmpeg decodes every frame of the file without an error: the offsets still point at the media. */
  async function expectPlayable(file: Buffer): Promise<void> {
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', onDisk(file), '-f', 'null', '-']);
    expect(stderr).to.equal('');
  }

  before(async function () {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-sign-'));
    [chain, desk] = await Promise.all([makeOpensslChain({ cn: 'BMFF Desk' }), openBindingDesk({ cn: 'c2pa-rs Desk', creator: 'c2pa-rs', title: 'clip' })]);
    for (const name of Object.keys(CLIPS) as ClipName[]) clips[name] = await makeClip(dir, name);
  });
  after(() => {
    desk?.close();
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const name of Object.keys(CLIPS) as ClipName[]) {
    const { mimeType } = CLIPS[name];
    it(`${name} (${mimeType}): Trusted with assertion.bmffHash.match, playable, the manifest right after ftyp; a flipped mdat byte Invalid`, async function () {
      const { file } = await sign(clips[name], mimeType);
      const report = await expectTrusted(file, mimeType);
      expect(report.manifest).to.deep.include({ title: 'Clip', creator: 'Ada Lovelace', actions: ['c2pa.created'] });
      await expectPlayable(file);
      // Where c2pa-rs puts it: the C2PA uuid box right after ftyp, then the free box filling the rest of the room.
      const top = boxesOf(file).map((b) => b.type);
      const source = boxesOf(clips[name]).map((b) => b.type);
      expect(top).to.deep.equal([source[0], 'uuid', 'free', ...source.slice(1)]);
      await expectMismatch(withFlippedMediaByte(file), mimeType);
    });
  }

  it('the same layout and media as c2pa-rs gives the file when it signs it itself, the manifest aside', async function () {
    const ours = (await sign(clips['clip.mp4'], 'video/mp4')).file;
    const theirs = await desk.embedded('video/mp4', clips['clip.mp4']);
    const types = (f: Buffer) => boxesOf(f).map((b) => b.type);
    expect(types(ours)).to.deep.equal(types(theirs).slice(0, 2).concat('free', types(theirs).slice(2)));
    // Every chunk offset moved by the room each gave its manifest: the same media, at the same distance after it.
    const room = (f: Buffer) => boxesOf(f).find((b) => b.type === 'mdat')!.offset;
    const shifted = (f: Buffer) => chunkOffsets(f).flatMap((t) => t.offsets.map((o) => o - room(f)));
    expect(shifted(ours)).to.deep.equal(shifted(theirs));
  });

  it('a 64-bit mdat size: Trusted and playable, the header kept as it was', async function () {
    const source = withLargesizeMdat(clips['clip.mp4']);
    expect(boxesOf(source).find((b) => b.type === 'mdat')!.header).to.equal(16);
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    await expectPlayable(file);
    expect(boxesOf(file).find((b) => b.type === 'mdat')!.header).to.equal(16);
    await expectMismatch(withFlippedMediaByte(file), 'video/mp4');
  });

  it('co64 tables: every 64-bit chunk offset moved, Trusted and playable', async function () {
    const source = withCo64(clips['clip.mp4']);
    expect(chunkOffsets(source).map((t) => t.type)).to.deep.equal(['co64', 'co64']);
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    await expectPlayable(file);
    const moved = boxesOf(file).find((b) => b.type === 'mdat')!.offset - boxesOf(source).find((b) => b.type === 'mdat')!.offset;
    expect(chunkOffsets(file)).to.deep.equal(chunkOffsets(source).map((t) => ({ type: 'co64', offsets: t.offsets.map((o) => o + moved) })));
  });

  it('an stco entry pushed past 4 GiB: that table widened to co64, its boxes grown, Trusted', async function () {
    // Entries 100 bytes under 4 GiB: the manifest's room (kilobytes) pushes every one past it.
    const source = withOffsetsNear4GiB(clips['clip.mp4'], 100);
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    const room = boxesOf(file).find((b) => b.type === 'free')!;
    const grown = chunkOffsets(file);
    expect(grown.map((t) => t.type)).to.deep.equal(['co64', 'co64']);
    // The made-up offsets point past the tables (a real file's would point into mdat): they move by the room and by
    // what the tables before them grew, 4 bytes an entry.
    const entries = grown.reduce((n, t) => n + t.offsets.length, 0);
    const moved = room.offset + room.size - boxesOf(source)[1]!.offset + 4 * entries;
    expect(grown.map((t) => t.offsets)).to.deep.equal(chunkOffsets(source).map((t) => t.offsets.map((o) => o + moved)));
    // moov and every box around a widened table grew by 4 bytes an entry; the file's boxes still add up.
    const moov = (f: Buffer) => boxesOf(f).find((b) => b.type === 'moov')!.size;
    expect(moov(file)).to.equal(moov(source) + 4 * entries);
    expect(boxesOf(file).reduce((n, b) => n + b.size, 0)).to.equal(file.length);
    // Putting one entry back as it was read Invalid: the hash covers moov.
    const co64 = findBoxes(file, 'co64')[0]!.box;
    const unmoved = Buffer.from(file);
    unmoved.writeBigUInt64BE(BigInt(chunkOffsets(source)[0]!.offsets[0]!), co64.offset + co64.header + 8);
    await expectMismatch(unmoved, 'video/mp4');
  });

  it('moov first (fast start): a table widened there moves the media after it again, and every offset follows', async function () {
    const source = withOffsetsNear4GiB(clips['fast.mp4'], 100);
    expect(boxesOf(source).map((b) => b.type).indexOf('moov')).to.be.below(boxesOf(source).map((b) => b.type).indexOf('mdat'));
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    const mdat = (f: Buffer) => boxesOf(f).find((b) => b.type === 'mdat')!.offset;
    const moved = mdat(file) - mdat(source);
    expect(chunkOffsets(file)[0]!.offsets).to.deep.equal(chunkOffsets(source)[0]!.offsets.map((o) => o + moved));
  });

  it('an offset left unmoved reads Invalid (the negative control of moving them)', async function () {
    const { file } = await sign(clips['fast.mp4'], 'video/mp4');
    const stco = findBoxes(file, 'stco')[0]!.box;
    const unmoved = Buffer.from(file);
    unmoved.writeUInt32BE(chunkOffsets(clips['fast.mp4'])[0]!.offsets[0]!, stco.offset + stco.header + 8);
    await expectMismatch(unmoved, 'video/mp4');
  });

  it('fragments: each tfhd base data offset and the mfra index moved, Trusted and playable', async function () {
    const source = clips['fragmented.mp4'];
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    await expectPlayable(file);
    const baseOffsets = (f: Buffer) => findBoxes(f, 'tfhd').map(({ box }) => Number(f.readBigUInt64BE(box.offset + 16)));
    const moofs = (f: Buffer) => boxesOf(f).filter((b) => b.type === 'moof').map((b) => b.offset);
    expect(baseOffsets(file)).to.deep.equal(moofs(file));
    expect(baseOffsets(source)).to.deep.equal(moofs(source));
    const tfra = findBoxes(file, 'tfra')[0]!.box;
    // tfra version 1: 64-bit time, then the moof's offset.
    expect(Number(file.readBigUInt64BE(tfra.offset + tfra.header + 16 + 8))).to.equal(moofs(file)[0]);
  });

  it('re-signs a file c2pa-rs signed: c2pa.opened, its manifest the parent ingredient with a matching BMFF hash, Trusted', async function () {
    const parent = await desk.embedded('video/mp4', clips['clip.mp4']);
    const before = await readAsset(parent, 'video/mp4', { trustAnchorsPem: desk.rootPem });
    const { file } = await sign(parent, 'video/mp4', { trustAnchorsPem: desk.rootPem });
    const report = await expectTrusted(file, 'video/mp4');
    expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
    expect(report.manifest?.ingredients).to.deep.equal([{ title: 'clip.mp4', relationship: 'parentOf', active_manifest: before.active_manifest, failure: [] }]);
    // The old C2PA box gave way to the new one: one manifest box, where the old one was.
    expect(boxesOf(file).filter((b) => b.type === 'uuid')).to.have.length(1);
    await expectPlayable(file);
  });

  it('re-signs a file it signed, recording the same verdict on the parent as c2pa-rs makes of the whole file', async function () {
    const parent = (await sign(clips['clip.mov'], 'video/quicktime', { thumbnail: true })).file;
    const { file } = await sign(parent, 'video/quicktime');
    await expectTrusted(file, 'video/quicktime');
    type Codes = { success: { code: string }[]; informational: { code: string }[]; failure: { code: string }[] };
    const codes = (c: Codes) => ({ success: c.success.map((e) => e.code).sort(), informational: c.informational.map((e) => e.code).sort(), failure: c.failure.map((e) => e.code).sort() });
    const reader = await c2paWasm().WasmReader.fromBytes('video/quicktime', new Uint8Array(file), trustSettings({ trustAnchorsPem: chain.pem.root }));
    const json = JSON.parse(reader.json()) as { active_manifest: string; manifests: Record<string, { ingredients: { validation_results: { activeManifest: Codes } }[] }> };
    reader.free();
    const ours = codes(json.manifests[json.active_manifest]!.ingredients[0]!.validation_results.activeManifest);
    // c2pa-rs's own ingredient of the whole parent, under the same settings (no anchors, as the worker signs).
    const builder = c2paWasm().WasmBuilder.new(signingSettings({ verifyAfterSign: false }));
    await builder.addIngredientFromBlob(JSON.stringify({ title: 'Clip', relationship: 'parentOf' }), 'video/quicktime', new BytesBlob(new Uint8Array(parent), 'video/quicktime'));
    const made = builder.getDefinition() as unknown as { ingredients: { validation_results: { activeManifest: Codes } }[] };
    builder.free();
    expect(ours).to.deep.equal(codes(made.ingredients[0]!.validation_results.activeManifest));
    expect(ours.success).to.include('assertion.bmffHash.match');
    expect(ours.failure).to.deep.equal(['signingCredential.untrusted']);
  });

  it('signed again and again, takes the manifest box and the padding after it as its room: one C2PA box, one free box', async function () {
    let file = (await sign(clips['clip.mp4'], 'video/mp4', { thumbnail: true })).file;
    for (let round = 0; round < 2; round++) {
      const before = boxesOf(file);
      const replaced = before.filter((b) => b.type === 'uuid' || b.type === 'free').reduce((n, b) => n + b.size, 0);
      file = (await sign(file, 'video/mp4')).file;
      const after = boxesOf(file);
      expect(after.map((b) => b.type)).to.deep.equal(before.map((b) => b.type));
      const room = after.filter((b) => b.type === 'uuid' || b.type === 'free').reduce((n, b) => n + b.size, 0);
      expect(file.length).to.equal(before.reduce((n, b) => n + b.size, 0) - replaced + room);
      await expectTrusted(file, 'video/mp4');
      await expectPlayable(file);
    }
  });

  it('keeps the rubrics clean: a thumbnail from an ffmpeg frame, re-signed as opened, every trait of the 2.4 and integrity profiles', async function () {
    const profile = (name: string) => loadRubric(new URL(`../fixtures/asset-rubrics/${name}`, import.meta.url).pathname);
    const [spec, integrity] = [profile('asset-rubric-conformance0.2-spec2.4.yml'), profile('asset-rubric-integrity.yml')];
    const first = (await sign(clips['clip.mp4'], 'video/mp4', { thumbnail: true })).file;
    const again = (await sign(first, 'video/mp4', { thumbnail: true })).file;
    for (const file of [first, again]) {
      const report = await expectTrusted(file, 'video/mp4');
      expect(report.manifest?.thumbnail).to.deep.equal({ format: 'image/jpeg' });
      const reader = await c2paWasm().WasmReader.fromBytes('video/mp4', new Uint8Array(file), trustSettings({ trustAnchorsPem: chain.pem.root }));
      const crJson = JSON.parse(reader.crJson()) as unknown;
      reader.free();
      expect(unmet(spec.evaluate(crJson))).to.deep.equal([]);
      expect(unmet(integrity.evaluate(crJson))).to.deep.equal([]);
    }
  });

  it('takes the claim thumbnail of a large video while the file is written: what it leaves of its room is free; one larger than its room has the file written again; a small video waits for it', async function () {
    const sourcePath = onDisk(clips['clip.mp4']);
    const signWith = async (name: string, options: { thumbnailRoom?: ThumbnailRoom; ffmpegPath?: string }) => {
      const outputPath = `${sourcePath}.${name}`;
      const thumbnailErrors: unknown[] = [];
      const signed = await signBmffFile(
        { sourcePath, outputPath, mimeType: 'video/mp4', manifest: definition(false, { thumbnail: true }), key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa], ffmpegPath: options.ffmpegPath ?? 'ffmpeg', onThumbnailError: (err) => thumbnailErrors.push(err) },
        'video/mp4',
        { thumbnailRoom: options.thumbnailRoom },
      );
      const file = readFileSync(outputPath);
      await expectTrusted(file, 'video/mp4');
      await expectPlayable(file);
      const free = boxesOf(file).find((b) => b.type === 'free')!;
      return { thumbnail: (await claimThumbnailOfStore(signed.manifestStore))?.bytes, free: free.size, thumbnailErrors };
    };
    // The clip is small: "large" from 0 bytes.
    const kept = await signWith('kept', { thumbnailRoom: { fromBytes: 0 } });
    expect(kept.thumbnailErrors).to.deep.equal([]);
    const thumbnailBytes = kept.thumbnail!.byteLength;
    expect(thumbnailBytes).to.be.within(1, CLAIM_THUMBNAIL_ROOM_BYTES);
    // The room's slack and what the thumbnail left of the room kept for it.
    expect(kept.free).to.be.within(CLAIM_THUMBNAIL_ROOM_BYTES - thumbnailBytes, CLAIM_THUMBNAIL_ROOM_BYTES - thumbnailBytes + 4096);
    const outgrown = await signWith('outgrown', { thumbnailRoom: { fromBytes: 0, bytes: 16 } });
    expect(Buffer.from(outgrown.thumbnail!).equals(Buffer.from(kept.thumbnail!))).to.equal(true);
    expect(outgrown.free).to.be.below(4096);
    // No thumbnail after all (ffmpeg cannot be run): signed without one, the room kept for it free.
    const none = await signWith('none', { thumbnailRoom: { fromBytes: 0 }, ffmpegPath: path.join(dir, 'no-ffmpeg') });
    expect(none.thumbnailErrors).to.have.length(1);
    expect(none.thumbnail).to.equal(undefined);
    expect(none.free).to.be.above(CLAIM_THUMBNAIL_ROOM_BYTES);
    // Below THUMBNAIL_ALONGSIDE_FROM_BYTES: the same thumbnail, in a room of its own size.
    expect(clips['clip.mp4'].length).to.be.below(THUMBNAIL_ALONGSIDE_FROM_BYTES);
    const waited = await signWith('waited', {});
    expect(Buffer.from(waited.thumbnail!).equals(Buffer.from(kept.thumbnail!))).to.equal(true);
    expect(waited.free).to.be.below(4096);
  });

  it('checks what it wrote: the body against its digest before the manifest goes in, the manifest read back after; each refuses a file that does not verify', async function () {
    const { file, signed } = await sign(clips['clip.mp4'], 'video/mp4');
    const digest = digestOf((await activeBmffHash(signed.manifestStore))!.assertion.hash)!;
    const refusal = (promise: Promise<void>) => promise.then(() => undefined, (err: unknown) => err);
    const signedPath = onDisk(file);
    const flippedPath = onDisk(withFlippedMediaByte(file));
    // The room (the manifest box and the free box after it) is out of the hash: the signed file's body still checks.
    await checkWrittenBody(signedPath, digest);
    expect(await refusal(checkWrittenBody(flippedPath, digest))).to.be.instanceOf(C2paError).with.property('message').that.matches(/does not hash to the digest/);
    await checkSignedFile(signedPath, 'video/mp4', chain.pem.subCa, digest);
    // Told of a body checked for another digest, the file is hashed again: a flipped media byte is found.
    const other = Buffer.from(digest).fill(7);
    await checkSignedFile(signedPath, 'video/mp4', chain.pem.subCa, other);
    expect(await refusal(checkSignedFile(flippedPath, 'video/mp4', chain.pem.subCa, other))).to.be.instanceOf(C2paError).with.property('message').that.matches(/does not verify/);
    // A manifest that no longer validates (a letter of an assertion changed) is refused whatever the body's check.
    const broken = Buffer.from(file);
    broken[broken.indexOf('Ada Lovelace')] ^= 0x01;
    expect(await refusal(checkSignedFile(onDisk(broken), 'video/mp4', chain.pem.subCa, digest))).to.be.instanceOf(C2paError).with.property('message').that.matches(/does not verify/);
  });

  it('carries the source XMP instanceID into the claim, as c2pa-rs does', async function () {
    const xmp = Buffer.from('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmpMM:InstanceID="xmp.iid:6f1e2d3c-0000-4000-8000-000000000001" xmpMM:DocumentID="xmp.did:clip"/></rdf:RDF></x:xmpmeta>');
    const box = Buffer.alloc(24);
    box.writeUInt32BE(24 + xmp.length);
    box.write('uuid', 4, 'latin1');
    Buffer.from('be7acfcb97a942e89c71999491e3afac', 'hex').copy(box, 8);
    // At the end: no offset moves.
    const source = Buffer.concat([clips['clip.mp4'], box, xmp]);
    const instanceIdOf = async (f: Buffer) => {
      const reader = await c2paWasm().WasmReader.fromBytes('video/mp4', new Uint8Array(f), trustSettings({ trustAnchorsPem: chain.pem.root }));
      try {
        return (JSON.parse(reader.crJson()) as { manifests: { 'claim.v2': { instanceID: string } }[] }).manifests[0]!['claim.v2'].instanceID;
      } finally {
        reader.free();
      }
    };
    const { file } = await sign(source, 'video/mp4');
    await expectTrusted(file, 'video/mp4');
    expect(await instanceIdOf(file)).to.equal('xmp.iid:6f1e2d3c-0000-4000-8000-000000000001');
    expect(await instanceIdOf(await desk.embedded('video/mp4', source))).to.equal('xmp.iid:6f1e2d3c-0000-4000-8000-000000000001');
  });

  it('refuses, writing nothing: a created definition over a manifest, a file c2pa-rs cannot walk', async function () {
    const parent = (await sign(clips['clip.m4a'], 'audio/mp4')).file;
    const sourcePath = onDisk(parent);
    const outputPath = path.join(dir, 'refused.m4a');
    const common = { sourcePath, outputPath, mimeType: 'audio/mp4' as const, key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] };
    expect(await signFile({ ...common, manifest: definition(false) }).catch((e: unknown) => e)).to.be.instanceOf(SourceManifestConflictError);
    // A box that runs past the end of the file.
    const cut = Buffer.from(clips['clip.m4a']);
    const last = boxesOf(cut).at(-1)!;
    cut.writeUInt32BE(last.size + 100, last.offset);
    const err = await signFile({ ...common, sourcePath: onDisk(cut), manifest: definition(false) }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(BmffUnsignableError);
    expect((err as BmffUnsignableError).kind).to.equal('unprocessable');
    expect(existsSync(outputPath)).to.equal(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('refused'))).to.deep.equal([]);
  });
});
