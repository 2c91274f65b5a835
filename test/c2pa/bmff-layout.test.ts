/**
 * The signed file's layout (shared/c2pa/bmff-layout.ts) and the offset fields it moves (bmff-offset-fields.ts),
 * planned from real ffmpeg files: the manifest's room after ftyp or in place of an existing manifest box, every box
 * and offset where it lands, the top level covered without a gap and hashed as c2pa-rs's default exclusions say,
 * 32-bit chunk offset tables widened when an entry passes 4 GiB (their boxes' sizes grown), other 32-bit offsets
 * pushed past 4 GiB refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BmffUnsignableError, withBmffFile } from '../../shared/c2pa/bmff-c2pa-boxes.js';
import { planBmffLayout, type BmffLayout } from '../../shared/c2pa/bmff-layout.js';
import { offsetFields } from '../../shared/c2pa/bmff-offset-fields.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';
import { boxesOf, chunkOffsets, findBoxes, makeClip, withOffsetsNear4GiB } from './bmff-files.js';

/** A top-level `meta` (FullBox) holding an `iloc` (version 0, 32-bit offsets) with one item at `baseOffset`. */
function metaWithIloc(baseOffset: number): Buffer {
  const iloc = Buffer.alloc(8 + 4 + 2 + 2 + 2 + 2 + 4 + 2 + 4 + 4);
  iloc.writeUInt32BE(iloc.length, 0);
  iloc.write('iloc', 4, 'latin1');
  iloc.writeUInt16BE(0x4440, 12); // offset_size 4, length_size 4, base_offset_size 4
  iloc.writeUInt16BE(1, 14); // one item
  iloc.writeUInt16BE(1, 16); // item_ID
  iloc.writeUInt32BE(baseOffset, 20); // after data_reference_index
  iloc.writeUInt16BE(1, 24); // one extent
  iloc.writeUInt32BE(10, 30); // extent_length (extent_offset 0)
  const meta = Buffer.alloc(12);
  meta.writeUInt32BE(12 + iloc.length, 0);
  meta.write('meta', 4, 'latin1');
  return Buffer.concat([meta, iloc]);
}

describe('c2pa: the layout of a BMFF file signed streamed', function () {
  this.timeout(60_000);
  let dir: string;
  let desk: BindingDesk;
  let clip: Buffer;
  let fast: Buffer;
  let n = 0;

  const plan = async (bytes: Buffer, room = 4096): Promise<BmffLayout> => {
    const file = path.join(dir, `f${(n += 1)}`);
    writeFileSync(file, bytes);
    return withBmffFile(file, async (reader, top) => planBmffLayout(reader, top, await offsetFields(reader, top.tree), room));
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-layout-'));
    desk = await openBindingDesk({ cn: 'Layout Desk', creator: 'c2pa-rs', title: 'clip' });
    [clip, fast] = await Promise.all([makeClip(dir, 'clip.mp4'), makeClip(dir, 'fast.mp4')]);
  });
  after(() => {
    desk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts the room right after ftyp and moves everything after it by its size; hashes all but ftyp and the room', async () => {
    const layout = await plan(clip, 4096);
    const source = boxesOf(clip);
    expect(layout.room).to.deep.equal({ offset: source[0]!.size, size: 4096 });
    expect(layout.outputSize).to.equal(clip.length + 4096);
    expect(layout.boxes.map((b) => [b.type, b.offset, b.size, b.hashed])).to.deep.equal([
      ['ftyp', 0, source[0]!.size, false],
      ['free', source[0]!.size, 4096, false],
      ...source.slice(1).map((b) => [b.type, b.offset + 4096, b.size, b.type !== 'free']),
    ]);
    expect(layout.moved(source[0]!.size - 1)).to.equal(source[0]!.size - 1);
    expect(layout.moved(source[0]!.size)).to.equal(source[0]!.size + 4096);
    // Both chunk offset tables (video, audio) are moved in place; nothing is widened.
    expect(layout.edits.map((e) => e.content.kind)).to.deep.equal(['room']);
    expect(layout.fields.map((f) => [f.box, f.width])).to.deep.equal([['stco', 4], ['stco', 4]]);
    expect(layout.sizeFields).to.deep.equal([]);
  });

  it('puts the room in place of an existing manifest box and the free box after it, moving what follows by the difference', async () => {
    const signed = await desk.embedded('video/mp4', clip);
    const [, old, padding] = boxesOf(signed);
    expect(old!.type).to.equal('uuid');
    // c2pa-rs leaves a free box after its manifest; the room takes it too.
    expect(padding!.type).to.equal('free');
    const replaced = old!.size + padding!.size;
    const layout = await plan(signed, replaced - 1000);
    expect(layout.room).to.deep.equal({ offset: old!.offset, size: replaced - 1000 });
    expect(layout.outputSize).to.equal(signed.length - 1000);
    expect(layout.moved(old!.offset + replaced)).to.equal(old!.offset + replaced - 1000);
    expect(layout.boxes.filter((b) => b.type === 'uuid')).to.deep.equal([]);
    expect(layout.boxes.filter((b) => b.type === 'free')).to.deep.equal([{ type: 'free', offset: old!.offset, size: replaced - 1000, hashed: false }]);
  });

  it('widens a chunk offset table an entry of which passes 4 GiB, growing its boxes up to moov by 4 bytes an entry', async () => {
    const near = withOffsetsNear4GiB(clip, 5000);
    // A room smaller than the distance to 4 GiB widens nothing.
    expect((await plan(near, 4096)).edits.map((e) => e.content.kind)).to.deep.equal(['room']);
    const layout = await plan(near, 8192);
    expect(layout.edits.map((e) => e.content.kind)).to.deep.equal(['room', 'co64', 'co64']);
    const entries = chunkOffsets(near).map((t) => t.offsets.length);
    const stco = findBoxes(near, 'stco');
    expect(layout.edits.slice(1).map((e) => e.inserted - e.removed)).to.deep.equal(entries.map((count) => 4 * count));
    // Every box around each table, trak to stbl for each and moov for both, grows by what its tables grew.
    const growth = new Map<number, number>();
    stco.forEach(({ around }, i) => around.forEach((b) => growth.set(b.offset, (growth.get(b.offset) ?? 0) + 4 * entries[i]!)));
    expect(layout.sizeFields.map((f) => [f.at, f.width, f.add])).to.deep.equal([...growth].sort((a, b) => a[0] - b[0]).map(([at, add]) => [at, 4, add]));
    const moov = layout.boxes.find((b) => b.type === 'moov')!;
    expect(moov.size).to.equal(boxesOf(near).find((b) => b.type === 'moov')!.size + 4 * (entries[0]! + entries[1]!));
  });

  it('with moov first, a widened table moves the media once more (planned until nothing more needs widening)', async () => {
    // A room of 4096 leaves the entries under 4 GiB; one of 5000 does not.
    expect((await plan(withOffsetsNear4GiB(fast, 5000), 4096)).edits.map((e) => e.content.kind)).to.deep.equal(['room']);
    const widened = await plan(withOffsetsNear4GiB(fast, 5000), 5000);
    const mdat = boxesOf(fast).find((b) => b.type === 'mdat')!;
    const growth = widened.edits.filter((e) => e.content.kind === 'co64').reduce((sum, e) => sum + e.inserted - e.removed, 0);
    expect(growth).to.be.above(0);
    expect(widened.moved(mdat.offset)).to.equal(mdat.offset + 5000 + growth);
  });

  it("moves a top-level meta's item locations; refuses a 32-bit one pushed past 4 GiB", async () => {
    const mdat = boxesOf(clip).find((b) => b.type === 'mdat')!;
    const layout = await plan(Buffer.concat([clip, metaWithIloc(mdat.offset + 8)]), 4096);
    const iloc = layout.fields.find((f) => f.box === 'iloc')!;
    expect(iloc).to.include({ at: clip.length + 12 + 20, count: 1, width: 4 });
    const err = await plan(Buffer.concat([clip, metaWithIloc(2 ** 32 - 100)]), 4096).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(BmffUnsignableError);
    expect((err as Error).message).to.match(/an offset in its iloc box would pass 4 GiB/);
  });

  it('refuses a room too small for a free box header', async () => {
    expect(await plan(clip, 7).catch((e: unknown) => e)).to.be.instanceOf(RangeError);
  });
});
