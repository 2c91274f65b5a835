/**
 * The v3 BMFF hash computed as a file streams by (shared/c2pa/bmff-stream-hash.ts) is c2pa-rs's: fed a file c2pa-rs
 * signed itself, in chunks of any size, it gives the digest c2pa-rs wrote into the file's assertion, with c2pa-rs's own
 * exclusions; and it refuses a plan with a gap, or bytes it did not plan.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { OutputBox } from '../../shared/c2pa/bmff-layout.js';
import { BmffStreamHash, DEFAULT_BMFF_EXCLUSIONS } from '../../shared/c2pa/bmff-stream-hash.js';
import { C2PA_UUID } from '../../shared/c2pa/bmff-walk.js';
import { bytesOf } from '../../shared/c2pa/crjson-values.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';
import { boxesOf, makeClip } from './bmff-files.js';

/** The top level of a file as the default exclusions see it. */
function planned(file: Buffer): OutputBox[] {
  return boxesOf(file).map((b) => ({
    type: b.type,
    offset: b.offset,
    size: b.size,
    hashed: !['ftyp', 'free', 'skip', 'mfra'].includes(b.type) && !(b.type === 'uuid' && file.subarray(b.offset + 8, b.offset + 24).equals(C2PA_UUID)),
  }));
}

function digestInChunks(file: Buffer, boxes: OutputBox[], chunk: () => number): Buffer {
  const hash = new BmffStreamHash(boxes);
  for (let at = 0; at < file.length; ) {
    const end = Math.min(file.length, at + chunk());
    hash.update(file.subarray(at, end));
    at = end;
  }
  return hash.digest();
}

describe('c2pa: the BMFF hash of a file as it streams by', function () {
  this.timeout(60_000);
  let dir: string;
  let desk: BindingDesk;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-stream-hash-'));
    desk = await openBindingDesk({ cn: 'Hash Desk', creator: 'c2pa-rs', title: 'clip' });
  });
  after(() => {
    desk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['clip.mp4', 'fragmented.mp4', 'clip.m4a'] as const) {
    it(`gives the digest c2pa-rs wrote signing ${name} itself, whatever the chunks, with the exclusions it wrote`, async () => {
      const mimeType = name.endsWith('m4a') ? 'audio/mp4' : 'video/mp4';
      const signed = await desk.embedded(mimeType, await makeClip(dir, name));
      const { assertion, matches } = await desk.readable<{ hash: string; exclusions: unknown }>(mimeType, signed, 'c2pa.hash.bmff', 'bmffHash');
      expect(matches).to.equal(true);
      expect(assertion.exclusions).to.deep.equal(DEFAULT_BMFF_EXCLUSIONS);
      const expected = Buffer.from(bytesOf(assertion.hash)!);
      expect(digestInChunks(signed, planned(signed), () => signed.length)).to.deep.equal(expected);
      expect(digestInChunks(signed, planned(signed), () => randomInt(1, 5000))).to.deep.equal(expected);
      expect(digestInChunks(signed, planned(signed), () => 1)).to.deep.equal(expected);
    });
  }

  it('refuses a plan with a gap or an overlap, bytes past the plan, and a digest before the end', () => {
    expect(() => new BmffStreamHash([{ type: 'ftyp', offset: 0, size: 20, hashed: false }, { type: 'mdat', offset: 24, size: 8, hashed: true }])).to.throw(RangeError, /gap/);
    const hash = new BmffStreamHash([{ type: 'mdat', offset: 0, size: 8, hashed: true }]);
    hash.update(Buffer.alloc(6));
    expect(() => hash.digest()).to.throw(RangeError, /before its planned end/);
    expect(() => hash.update(Buffer.alloc(3))).to.throw(RangeError, /more bytes than/);
  });
});
