import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { expect } from 'chai';
import request from 'supertest';
import { BINDING_LIMITS, BindingLimitExceeded } from '../../shared/c2pa/binding-limits.js';
import { bmffHashMatches, type BmffHashAssertion } from '../../shared/c2pa/bmff-hash.js';
import { BmffFileReader, bmffBoxTree } from '../../shared/c2pa/bmff-walk.js';
import { bytesOf } from '../../shared/c2pa/crjson-values.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { DAMAGE, makeSamples, topLevelBoxes, type Samples } from '../media/samples.js';
import { startTestApi } from '../support/api.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';

type BmffType = 'video/mp4' | 'video/quicktime' | 'audio/mp4' | 'image/avif' | 'image/heic';
const BMFF_TYPES: BmffType[] = ['video/mp4', 'video/quicktime', 'audio/mp4', 'image/avif', 'image/heic'];

/** An ISO BMFF box of `type` around `body`. */
function box(type: string, body: Buffer, large = false): Buffer {
  const header = Buffer.alloc(large ? 16 : 8);
  header.write(type, 4, 'latin1');
  if (large) {
    header.writeUInt32BE(1);
    header.writeBigUInt64BE(BigInt(16 + body.length), 8);
  } else header.writeUInt32BE(8 + body.length);
  return Buffer.concat([header, body]);
}

/** The file with `inserted` put before its top-level box number `index` (or at the end). */
function insertBox(file: Buffer, index: number, inserted: Buffer): Buffer {
  const at = topLevelBoxes(file)[index]?.at ?? file.length;
  return Buffer.concat([file.subarray(0, at), inserted, file.subarray(at)]);
}

/** One bit of the first mdat's payload flipped (for HEIC/AVIF: the image data). */
function flipMdatByte(file: Buffer): Buffer {
  const mdat = topLevelBoxes(file).find((b) => b.type === 'mdat')!;
  const copy = Buffer.from(file);
  copy[mdat.at + 8 + Math.floor((mdat.size - 8) / 2)]! ^= 0x01;
  return copy;
}

/** The file with its top-level boxes `a` and `b` (indexes) swapped: the same bytes, at other offsets. */
function swapBoxes(file: Buffer, a: number, b: number): Buffer {
  const boxes = topLevelBoxes(file);
  const parts = boxes.map((x) => file.subarray(x.at, x.at + x.size));
  [parts[a], parts[b]] = [parts[b]!, parts[a]!];
  return Buffer.concat(parts);
}

/** `count` empty boxes of `type`, one after the other. */
const boxes = (count: number, type: string) => Buffer.concat(Array.from({ length: count }, () => box(type, Buffer.alloc(0))));

/** How many boxes c2pa-rs's walk lists in the file (all levels). */
async function boxCount(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const tree = await bmffBoxTree(new BmffFileReader(handle, (await handle.stat()).size), { maxBoxes: Infinity });
    return [...tree.values()].reduce((n, list) => n + list.length, 0);
  } finally {
    await handle.close();
  }
}

/** The c2pa.hash.bmff.v3 of a sidecar, from c2pa-rs's crJSON of the store. */
async function sidecarAssertion(sidecar: Uint8Array): Promise<BmffHashAssertion> {
  const reader = await c2paWasm().WasmReader.fromBytes('application/c2pa', sidecar, JSON.stringify({ verify: { remote_manifest_fetch: false } }));
  try {
    const active = reader.activeLabel();
    const manifest = (JSON.parse(reader.crJson()) as { manifests: { label: string; assertions: Record<string, BmffHashAssertion> }[] }).manifests.find((m) => m.label === active)!;
    return manifest.assertions['c2pa.hash.bmff.v3']!;
  } finally {
    reader.free();
  }
}

/** The assertion in the form a builder takes (bytes as arrays of numbers) with other exclusions. */
function withExclusions(assertion: BmffHashAssertion, exclusions: unknown[]): Record<string, unknown> {
  return { alg: assertion.alg, hash: [...bytesOf(assertion.hash!.replace(/^b64'|'$/g, ''))!], exclusions, name: 'jumbf manifest' };
}

describe('c2pa: BMFF hard bindings (c2pa.hash.bmff.v2/v3) of a manifest that is not in the file', function () {
  let desk: BindingDesk;
  let dir: string;
  let samples: Samples;
  let sidecars: Record<BmffType, Uint8Array>;
  const readWith = (file: Buffer, sidecar: Uint8Array) => desk.readWith(file, sidecar);
  const c2paRsVerdict = (type: BmffType, file: Buffer) => desk.c2paRsVerdict<BmffHashAssertion>(type, file, 'c2pa.hash.bmff', 'bmffHash');
  const readable = (type: BmffType, file: Buffer) => desk.readable<BmffHashAssertion>(type, file, 'c2pa.hash.bmff', 'bmffHash');

  before(async () => {
    desk = await openBindingDesk({ cn: 'BMFF Publisher', creator: 'BMFF Desk', title: 'clip' });
    ({ dir, samples } = await makeSamples());
    const entries = await Promise.all(BMFF_TYPES.map(async (type) => [type, await desk.sidecarFor(type, samples[type])] as const));
    sidecars = Object.fromEntries(entries) as Record<BmffType, Uint8Array>;
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    desk?.close();
  });

  for (const type of BMFF_TYPES) {
    it(`${type}: the file with its sidecar is Trusted with assertion.bmffHash.match; a flipped mdat byte is a mismatch`, async () => {
      const report = await readWith(samples[type], sidecars[type]);
      expect(report.validation_state, report.summary).to.equal('Trusted');
      expect(report.status.success).to.include('assertion.bmffHash.match');
      expect(report.status.failure).to.deep.equal([]);
      expect(report.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: true });

      const tampered = await readWith(flipMdatByte(samples[type]), sidecars[type]);
      expect(tampered.validation_state).to.equal('Invalid');
      expect(tampered.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
      expect(tampered.status.success).to.not.include('assertion.bmffHash.match');
      expect(tampered.failures).to.deep.equal([
        {
          code: 'assertion.bmffHash.mismatch',
          explanation: "the file does not hash to the manifest's c2pa.hash.bmff.v3",
          in: 'manifest',
          ingredient: null,
          url: `self#jumbf=/c2pa/${tampered.active_manifest}/c2pa.assertions/c2pa.hash.bmff.v3`,
        },
      ]);
      expect(tampered.summary).to.match(/^Invalid: assertion\.bmffHash\.mismatch in the manifest/);
    });
  }

  it('a box inserted or moved is a mismatch (offsets are hashed); a free box added at the end is not (free is excluded)', async () => {
    const mp4 = samples['video/mp4'];
    const sidecar = sidecars['video/mp4'];
    const boxes = topLevelBoxes(mp4).map((b) => b.type);
    expect(boxes).to.include.members(['ftyp', 'moov', 'mdat']);

    const inserted = await readWith(insertBox(mp4, 1, box('abcd', Buffer.alloc(16, 7))), sidecar);
    expect(inserted.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    // An excluded box still moves the boxes after it, and their offsets are part of the v2/v3 hash.
    const freeInserted = await readWith(insertBox(mp4, 1, box('free', Buffer.alloc(16))), sidecar);
    expect(freeInserted.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    const moved = await readWith(swapBoxes(mp4, boxes.indexOf('moov'), boxes.indexOf('mdat')), sidecar);
    expect(moved.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);

    const freeAppended = await readWith(Buffer.concat([mp4, box('free', Buffer.alloc(32))]), sidecar);
    expect(freeAppended.validation_state).to.equal('Trusted');
    expect(freeAppended.status.success).to.include('assertion.bmffHash.match');
  });

  it('a truncated, damaged, empty or garbage file does not throw: it is Invalid with assertion.bmffHash.mismatch', async () => {
    const mp4 = samples['video/mp4'];
    const files = [mp4.subarray(0, Math.floor(mp4.length / 2)), mp4.subarray(0, 12), DAMAGE['video/mp4'][1](mp4), Buffer.alloc(0), randomBytes(4096), Buffer.alloc(4096)];
    for (const file of files) {
      const report = await readWith(file, sidecars['video/mp4']);
      expect(report.validation_state).to.equal('Invalid');
      expect(report.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    }
  });

  it('bmffHashMatches agrees with c2pa-rs on files it signed with the manifest embedded, original and tampered', async () => {
    const mp4 = samples['video/mp4'];
    const last = topLevelBoxes(mp4).at(-1)!;
    const mdat = topLevelBoxes(mp4).find((b) => b.type === 'mdat')!;
    // The last box's size written as 0 ("to the end of the file"), and mdat's as a 64-bit largesize.
    const toEnd = Buffer.from(mp4);
    toEnd.writeUInt32BE(0, last.at);
    const largeMdat = Buffer.concat([mp4.subarray(0, mdat.at), box('mdat', mp4.subarray(mdat.at + 8, mdat.at + mdat.size), true), mp4.subarray(mdat.at + mdat.size)]);
    const sources: [string, BmffType, Buffer][] = [
      ...BMFF_TYPES.map((t): [string, BmffType, Buffer] => [t, t, samples[t]]),
      ['MP4, last box of size 0', 'video/mp4', toEnd],
      ['MP4, mdat with a 64-bit size', 'video/mp4', largeMdat],
    ];
    for (const [what, type, source] of sources) {
      const signed = await desk.embedded(type, source);
      const boxes = topLevelBoxes(signed).map((b) => b.type);
      const variants: [string, Buffer][] = [
        ['as signed', signed],
        ['an mdat byte flipped', flipMdatByte(signed)],
        ['a free box inserted after ftyp', insertBox(signed, 1, box('free', Buffer.alloc(8)))],
        ['a free box appended', Buffer.concat([signed, box('free', Buffer.alloc(8))])],
        ['an unknown box appended', Buffer.concat([signed, box('junk', Buffer.alloc(8))])],
        ['the last box cut short', signed.subarray(0, signed.length - 4)],
        ['two boxes swapped', swapBoxes(signed, boxes.length - 2, boxes.length - 1)],
      ];
      const { assertion, label } = await readable(type, signed);
      const version = Number(/\.v(\d)$/.exec(label)?.[1] ?? 1);
      for (const [how, file] of variants) {
        const verdict = await c2paRsVerdict(type, file);
        const theirs = verdict === 'unreadable' ? false : verdict.matches;
        expect(await bmffHashMatches(desk.onDisk(file), assertion, { version }), `${what}, ${how}: c2pa-rs says ${verdict === 'unreadable' ? 'unreadable' : theirs}`).to.equal(theirs);
      }
      expect((await readable(type, signed)).matches, `${what} as signed`).to.equal(true);
    }
  });

  it('a file at the box limit is checked; one box more is Invalid with assertion.bmffHash.mismatch saying so, nothing more read', async () => {
    const mp4 = samples['video/mp4'];
    const own = await boxCount(desk.onDisk(mp4));
    // Free boxes are excluded (c2pa-rs's defaults): the file at the limit still hashes to its sidecar.
    const atLimit = Buffer.concat([mp4, boxes(BINDING_LIMITS.bmffBoxes - own, 'free')]);
    expect(await boxCount(desk.onDisk(atLimit))).to.equal(BINDING_LIMITS.bmffBoxes);
    const ok = await readWith(atLimit, sidecars['video/mp4']);
    expect(ok.validation_state, ok.summary).to.equal('Trusted');
    expect(ok.status.success).to.include('assertion.bmffHash.match');

    const over = await readWith(Buffer.concat([atLimit, box('free', Buffer.alloc(0))]), sidecars['video/mp4']);
    expect(over.validation_state).to.equal('Invalid');
    expect(over.status.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    expect(over.failures.map((f) => [f.code, f.explanation])).to.deep.equal([
      ['assertion.bmffHash.mismatch', 'the file has more than 10,000 boxes, the most whose binding is checked: c2pa.hash.bmff.v3 not checked'],
    ]);
    expect(over.summary).to.match(/^Invalid: assertion\.bmffHash\.mismatch in the manifest/);
  });

  it('a sidecar listing more exclusions than the limit is Invalid with assertion.bmffHash.malformed; at the limit it is checked', async () => {
    const mp4 = samples['video/mp4'];
    const assertion = await sidecarAssertion(sidecars['video/mp4']);
    const defaults = assertion.exclusions!.map((e) => ({ ...e, ...(e.data ? { data: e.data.map((d) => ({ offset: d.offset, value: [...bytesOf(d.value)!] })) } : {}) }));
    const sidecarWith = (count: number) => {
      const exclusions = [...defaults, ...Array.from({ length: count - defaults.length }, () => ({ xpath: '/free' }))];
      return desk.sidecarFor('video/mp4', mp4, (builder) => builder.addAssertion('c2pa.hash.bmff.v3', withExclusions(assertion, exclusions)));
    };
    // The same ranges, listed 1,000 times: the digest c2pa-rs computed with its own five holds.
    const atLimit = await readWith(mp4, await sidecarWith(BINDING_LIMITS.bmffExclusions));
    expect(atLimit.validation_state, atLimit.summary).to.equal('Trusted');
    expect(atLimit.status.success).to.include('assertion.bmffHash.match');

    const over = await readWith(mp4, await sidecarWith(BINDING_LIMITS.bmffExclusions + 1));
    expect(over.validation_state).to.equal('Invalid');
    expect(over.status.failure).to.deep.equal(['assertion.bmffHash.malformed']);
    expect(over.failures.map((f) => [f.code, f.explanation])).to.deep.equal([
      ['assertion.bmffHash.malformed', "the manifest's BMFF hash lists 1,001 exclusions, more than the 1,000 checked: c2pa.hash.bmff.v3 not checked"],
    ]);
  });

  it('exclusions that would check more than the limit of boxes throw BindingLimitExceeded before reading them', async () => {
    const mp4 = samples['video/mp4'];
    const { assertion } = await readable('video/mp4', await desk.embedded('video/mp4', mp4));
    const file = desk.onDisk(Buffer.concat([mp4, boxes(2_000, 'free')]));
    // 600 exclusions of /free, each to be checked against 2,000 boxes with its one data entry: 2,400,000 checks.
    const exclusions = Array.from({ length: 600 }, () => ({ xpath: '/free', data: [{ offset: 0, value: [0] }] }));
    const refused = await bmffHashMatches(file, { ...assertion, exclusions }, { version: 3 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(BindingLimitExceeded);
    expect(refused).to.deep.include({ part: 'assertion', message: "the exclusions of the manifest's BMFF hash would check more than 1,000,000 boxes" });
    // 200 of them stay within it (800,000 checks) and are judged.
    expect(await bmffHashMatches(file, { ...assertion, exclusions: exclusions.slice(0, 200) }, { version: 3 })).to.equal(false);
  });

  it('bmffHashMatches cannot judge an unknown algorithm, a missing hash or Merkle trees; without an alg it takes the claim\'s', async () => {
    const signed = await desk.embedded('video/mp4', samples['video/mp4']);
    const file = desk.onDisk(signed);
    const { assertion } = await readable('video/mp4', signed);
    expect(await bmffHashMatches(file, assertion, { version: 3 })).to.equal(true);
    expect(await bmffHashMatches(file, { ...assertion, alg: 'md5' }, { version: 3 })).to.equal(undefined);
    expect(await bmffHashMatches(file, { ...assertion, alg: 'constructor' }, { version: 3 })).to.equal(undefined);
    expect(await bmffHashMatches(file, { ...assertion, hash: undefined }, { version: 3 })).to.equal(undefined);
    expect(await bmffHashMatches(file, { ...assertion, merkle: [] }, { version: 3 })).to.equal(undefined);
    // Exclusions c2pa-rs would not deserialize (a sidecar is anyone's bytes): not judged, and nothing thrown.
    for (const exclusions of ['/uuid', [{ xpath: '/uuid', subset: 5 }], [{ xpath: 7 }], [{ xpath: '/uuid', data: [{ offset: -1, value: [1] }] }], [{ xpath: '/ftyp', flags: 'b64\'!\'' }]]) {
      expect(await bmffHashMatches(file, { ...assertion, exclusions } as unknown as BmffHashAssertion, { version: 3 })).to.equal(undefined);
    }
    const { alg: _sha256, ...noAlg } = assertion;
    expect(await bmffHashMatches(file, noAlg, { version: 3, claimAlg: 'sha256' })).to.equal(true);
    expect(await bmffHashMatches(file, noAlg, { version: 3, claimAlg: 'sha512' })).to.equal(false);
    // Version 1 hashes no offsets: the same digest does not match.
    expect(await bmffHashMatches(file, assertion, { version: 1 })).to.equal(false);
  });

  it('POST /v1/verify: an MP4 with its .c2pa sidecar is Trusted with assertion.bmffHash.match, a tampered copy Invalid', async () => {
    const api = await startTestApi({ TRUST_ANCHORS_FILE: desk.chain.files.root }, { issuer: false });
    try {
      const ok = (await request(api.app).post('/v1/verify').attach('file', samples['video/mp4'], 'clip.mp4').attach('manifest', Buffer.from(sidecars['video/mp4']), 'clip.c2pa').expect(200)).body;
      expect(ok.validation_state).to.equal('Trusted');
      expect(ok.status.success).to.include('assertion.bmffHash.match');
      expect(ok.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: true });
      expect(ok.manifest.title).to.equal('clip.mp4');

      const bad = (await request(api.app).post('/v1/verify').attach('file', flipMdatByte(samples['video/mp4']), 'clip.mp4').attach('manifest', Buffer.from(sidecars['video/mp4']), 'clip.c2pa').expect(200)).body;
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.include('assertion.bmffHash.mismatch');
    } finally {
      await api.close();
    }
  });
});
