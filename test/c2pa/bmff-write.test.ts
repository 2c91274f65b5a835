/**
 * Writing the signed file as planned (shared/c2pa/bmff-write.ts): the same bytes whatever the chunk size (a chunk never
 * splits an offset field, which is moved whole), every byte handed on in order, each table to widen rewritten as co64;
 * the manifest's room filled with the C2PA box c2pa-rs writes and a free box; a source that changes under it leaves
 * no output behind.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { withBmffFile } from '../../shared/c2pa/bmff-c2pa-boxes.js';
import { planBmffLayout, type BmffLayout } from '../../shared/c2pa/bmff-layout.js';
import { offsetFields } from '../../shared/c2pa/bmff-offset-fields.js';
import { manifestRoomBytes, roomFor, writeBmffBody, writeManifestRoom } from '../../shared/c2pa/bmff-write.js';
import type { BmffFileReader } from '../../shared/c2pa/bmff-walk.js';
import { boxesOf, chunkOffsets, makeClip, withOffsetsNear4GiB } from './bmff-files.js';

describe('c2pa: writing a BMFF file signed streamed', function () {
  this.timeout(60_000);
  let dir: string;
  let clip: Buffer;
  let n = 0;

  /** Plans `bytes` with a room of `room` and writes it in chunks of `chunkBytes`; the output and what was handed on. */
  async function write(bytes: Buffer, room: number, chunkBytes?: number, change?: (sourcePath: string) => void): Promise<{ out: string; handed: Buffer; layout: BmffLayout }> {
    const source = path.join(dir, `s${(n += 1)}`);
    const out = `${source}.out`;
    writeFileSync(source, bytes);
    const handedOn: Buffer[] = [];
    const layout = await withBmffFile(source, async (file: BmffFileReader, top) => {
      const planned = await planBmffLayout(file, top, await offsetFields(file, top.tree), room);
      change?.(source);
      const handle = await open(source, 'r');
      try {
        await writeBmffBody(handle, file, planned, out, (chunk) => handedOn.push(Buffer.from(chunk)), chunkBytes);
      } finally {
        await handle.close();
      }
      return planned;
    });
    return { out, handed: Buffer.concat(handedOn), layout };
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-write-'));
    clip = await makeClip(dir, 'clip.mp4');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the planned file, moving every chunk offset, the same in chunks of 4 MiB, 7 bytes or 1 byte', async () => {
    const whole = await write(clip, 2048);
    const written = readFileSync(whole.out);
    expect(written.length).to.equal(whole.layout.outputSize);
    expect(whole.handed.equals(written)).to.equal(true);
    expect(boxesOf(written).map((b) => b.type)).to.deep.equal(['ftyp', 'free', ...boxesOf(clip).slice(1).map((b) => b.type)]);
    expect(chunkOffsets(written)).to.deep.equal(chunkOffsets(clip).map((t) => ({ type: 'stco', offsets: t.offsets.map((o) => o + 2048) })));
    for (const chunk of [7, 1]) expect(readFileSync((await write(clip, 2048, chunk)).out).equals(written), `chunks of ${chunk}`).to.equal(true);
  });

  it('rewrites a table to widen as co64, the same in small chunks', async () => {
    const near = withOffsetsNear4GiB(clip, 1000);
    const written = readFileSync((await write(near, 2048)).out);
    expect(chunkOffsets(written).map((t) => t.type)).to.deep.equal(['co64', 'co64']);
    expect(boxesOf(written).reduce((sum, b) => sum + b.size, 0)).to.equal(written.length);
    expect(readFileSync((await write(near, 2048, 5)).out).equals(written)).to.equal(true);
  });

  it("fills the room with c2pa-rs's C2PA box and a free box, or the box alone when it fits exactly", async () => {
    const store = Buffer.from('a manifest store');
    const room = manifestRoomBytes(store, roomFor(store.length, 100));
    expect(room.length).to.equal(45 + store.length + 100);
    expect(room.readUInt32BE(0)).to.equal(45 + store.length);
    expect(room.toString('latin1', 4, 8)).to.equal('uuid');
    expect(room.subarray(8, 24).toString('hex')).to.equal('d8fec3d61b0e483c92975828877ec481');
    expect(room.subarray(24, 45).toString('latin1')).to.equal('\0\0\0\0manifest\0\0\0\0\0\0\0\0\0');
    expect(room.subarray(45, 45 + store.length).equals(store)).to.equal(true);
    expect(boxesOf(room).map((b) => [b.type, b.size])).to.deep.equal([['uuid', 45 + store.length], ['free', 100]]);
    expect(manifestRoomBytes(store, 45 + store.length).length).to.equal(45 + store.length);
    expect(() => manifestRoomBytes(store, 45 + store.length + 7)).to.throw(RangeError);
    expect(() => manifestRoomBytes(store, 44 + store.length)).to.throw(RangeError);
    expect(roomFor(store.length, 0)).to.equal(45 + store.length + 8);

    const { out, layout } = await write(clip, roomFor(store.length, 100));
    await writeManifestRoom(out, layout.room, store);
    const written = readFileSync(out);
    expect(written.subarray(layout.room.offset, layout.room.offset + layout.room.size).equals(room)).to.equal(true);
    expect(boxesOf(written).map((b) => b.type).slice(0, 3)).to.deep.equal(['ftyp', 'uuid', 'free']);
  });

  it('leaves no output when the source shrinks while it is written', async () => {
    const err = await write(clip, 2048, undefined, (source) => truncateSync(source, 1000)).catch((e: unknown) => e);
    expect((err as Error).message).to.match(/ended .* early/);
    expect(existsSync(path.join(dir, `s${n}.out`))).to.equal(false);
  });
});
