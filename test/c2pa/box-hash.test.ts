import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import request from 'supertest';
import { BINDING_LIMITS, BindingLimitExceeded } from '../../shared/c2pa/binding-limits.js';
import { boxHashMatches, type BoxHashAssertion } from '../../shared/c2pa/box-hash.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { startTestApi } from '../support/api.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';

/**
 * c2pa-wasm (c2pa-rs 0.91) signs JPEG and PNG with a c2pa.hash.data only: its builder.prefer_box_hash setting does not
 * reach Builder::sign (the file still comes out data-hashed). It does sign a manifest that already holds a
 * c2pa.hash.boxes, as given, and verifies it like any other on reading. So the box hashes here are made by the test
 * from its own walk of the file (segments and chunks, below: independent of box-hash.ts), and c2pa-rs is the judge:
 * it must read a file it embedded such a manifest in as boxesHash.match, and box-hash.ts must give its verdict on
 * every tampered copy.
 */

type BoxType = 'image/jpeg' | 'image/png';

interface Segment {
  name: string;
  at: number;
  end: number;
}

const JPEG_NAMES: Record<number, string> = { 0xdb: 'DQT', 0xc0: 'SOF0', 0xc1: 'SOF1', 0xc2: 'SOF2', 0xc4: 'DHT', 0xda: 'SOS', 0xdd: 'DRI', 0xfe: 'COM' };

/** A JPEG's segments as written by an encoder (no fill bytes): SOI, marker segments, each scan with its data, EOI. */
function jpegSegments(file: Buffer): Segment[] {
  const out: Segment[] = [{ name: 'SOI', at: 0, end: 2 }];
  for (let at = 2; at < file.length; ) {
    const marker = file[at + 1]!;
    if (marker === 0xd9) {
      out.push({ name: 'EOI', at, end: at + 2 });
      break;
    }
    if (marker >= 0xd0 && marker <= 0xd7) {
      out.push({ name: `RST${marker - 0xd0}`, at, end: at + 2 });
      at = nextMarker(file, at + 2);
      continue;
    }
    const end = at + 2 + file.readUInt16BE(at + 2);
    out.push({ name: marker >= 0xe0 && marker <= 0xef ? `APP${marker - 0xe0}` : JPEG_NAMES[marker]!, at, end });
    at = marker === 0xda ? nextMarker(file, end) : end;
  }
  return out;
}

/** The next marker in entropy-coded data (0xFF followed by neither 0x00 nor a restart marker counts for a scan's length). */
function nextMarker(file: Buffer, from: number): number {
  let at = from;
  while (!(file[at] === 0xff && file[at + 1] !== 0x00)) at += 1;
  return at;
}

/** The scan's length as c2pa-rs counts it: up to the first marker that is not a restart. */
function scanEnd(file: Buffer, sos: Segment): number {
  let at = sos.end;
  while (!(file[at] === 0xff && file[at + 1] !== 0x00 && !(file[at + 1]! >= 0xd0 && file[at + 1]! <= 0xd7))) at += 1;
  return at;
}

function pngChunks(file: Buffer): Segment[] {
  const out: Segment[] = [{ name: 'PNGh', at: 0, end: 8 }];
  for (let at = 8; at < file.length; ) {
    const end = at + 12 + file.readUInt32BE(at);
    out.push({ name: file.toString('latin1', at + 4, at + 8), at, end });
    at = end;
  }
  return out;
}

const sha256 = (bytes: Buffer) => [...createHash('sha256').update(bytes).digest()];

/**
 * A c2pa.hash.boxes for the file, one entry a box as c2pa-rs writes them, with the C2PA store's entry (not hashed)
 * where c2pa-rs puts the store (embedded: after the last APP0, or the SOI; after a PNG's IHDR) or, for a JPEG
 * without one, its placeholder (after the first APP0). `minimal`: the boxes before and after the store as one entry
 * each, as c2pa-rs's minimal form groups them.
 */
function boxHashFor(type: BoxType, file: Buffer, options: { embedded: boolean; minimal?: boolean }): { boxes: unknown[] } {
  const segments = type === 'image/jpeg' ? jpegSegments(file) : pngChunks(file);
  const names = segments.map((s) => s.name);
  const storeAfter = type === 'image/png' ? names.indexOf('IHDR') : Math.max(0, options.embedded ? names.lastIndexOf('APP0') : names.indexOf('APP0'));
  const withStore = type === 'image/jpeg' || options.embedded;
  const range = (s: Segment) => file.subarray(s.at, s.name === 'SOS' ? scanEnd(file, s) : s.end);
  const store = { names: ['C2PA'], hash: [0], excluded: true, pad: [] };
  if (options.minimal) {
    const group = (part: Segment[]) => ({ names: part.map((s) => s.name), alg: 'sha256', hash: sha256(file.subarray(part[0]!.at, part.at(-1)!.end)), pad: [] });
    return { boxes: [group(segments.slice(0, storeAfter + 1)), store, group(segments.slice(storeAfter + 1))] };
  }
  const boxes: unknown[] = segments.map((s) => ({ names: [s.name], alg: 'sha256', hash: sha256(range(s)), pad: [] }));
  if (withStore) boxes.splice(storeAfter + 1, 0, store);
  return { boxes };
}

/** The file with `inserted` put at byte `at`. */
const insertAt = (file: Buffer, at: number, inserted: Buffer) => Buffer.concat([file.subarray(0, at), inserted, file.subarray(at)]);

/** One byte of the image data flipped: the middle of the first scan's entropy-coded data, or of the first IDAT's data. */
function flipPixelByte(type: BoxType, file: Buffer): Buffer {
  const copy = Buffer.from(file);
  const data = type === 'image/jpeg' ? jpegSegments(file).find((s) => s.name === 'SOS')! : pngChunks(file).find((s) => s.name === 'IDAT')!;
  let at = type === 'image/jpeg' ? data.end + Math.floor((scanEnd(file, data) - data.end) / 2) : data.at + 8 + Math.floor((data.end - data.at - 12) / 2);
  // Stay clear of 0xFF in JPEG entropy data: a flip must change a value, not make a marker.
  while (type === 'image/jpeg' && (copy[at] === 0xff || copy[at - 1] === 0xff || (copy[at]! ^ 0x01) === 0xff)) at += 1;
  copy[at]! ^= 0x01;
  return copy;
}

const comSegment = (text: string) => {
  const body = Buffer.from(text, 'latin1');
  const head = Buffer.from([0xff, 0xfe, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
};

const textChunk = (text: string) => {
  const body = Buffer.from(text, 'latin1');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length);
  head.write('tEXt', 4, 'latin1');
  return Buffer.concat([head, body, Buffer.alloc(4)]); // the CRC is not checked by the box map
};

/** A COM segment before the fourth segment (SOI counted), or a tEXt chunk right after IHDR. */
function insertBox(type: BoxType, file: Buffer): Buffer {
  const boxes = type === 'image/jpeg' ? jpegSegments(file) : pngChunks(file);
  return insertAt(file, boxes[type === 'image/jpeg' ? 3 : 2]!.at, type === 'image/jpeg' ? comSegment('inserted') : textChunk('Comment\0inserted'));
}

describe('c2pa: box hash hard bindings (c2pa.hash.boxes) of a manifest that is not in the file', function () {
  let desk: BindingDesk;
  let samples: Record<BoxType, Buffer>;
  let sidecars: Record<BoxType, Uint8Array>;
  /** c2pa-rs signs a manifest that already holds a c2pa.hash.boxes as given (see above). */
  const withBoxHash = (boxHash: { boxes: unknown[] }) => (builder: { addAssertion(label: string, data: unknown): void }) => builder.addAssertion('c2pa.hash.boxes', boxHash);
  const sidecarFor = (type: BoxType, file: Buffer) => desk.sidecarFor(type, file, withBoxHash(boxHashFor(type, file, { embedded: false })));
  const embedded = (type: BoxType, file: Buffer, minimal = false) => desk.embedded(type, file, withBoxHash(boxHashFor(type, file, { embedded: true, minimal })));
  const readWith = (file: Buffer, sidecar: Uint8Array) => desk.readWith(file, sidecar);
  const c2paRsVerdict = (type: BoxType, file: Buffer) => desk.c2paRsVerdict<BoxHashAssertion>(type, file, 'c2pa.hash.boxes', 'boxesHash');
  const readable = (type: BoxType, file: Buffer) => desk.readable<BoxHashAssertion>(type, file, 'c2pa.hash.boxes', 'boxesHash');

  before(async () => {
    desk = await openBindingDesk({ cn: 'Box Publisher', creator: 'Box Desk', title: 'picture' });
    const picture = sharp({ create: { width: 48, height: 32, channels: 3, background: '#3366aa' } }).composite([
      { input: { create: { width: 16, height: 16, channels: 3, background: '#cc3333' } }, left: 8, top: 8 },
    ]);
    samples = { 'image/jpeg': await picture.clone().jpeg().toBuffer(), 'image/png': await picture.clone().png().toBuffer() };
    sidecars = { 'image/jpeg': await sidecarFor('image/jpeg', samples['image/jpeg']), 'image/png': await sidecarFor('image/png', samples['image/png']) };
  });
  after(() => desk?.close());

  for (const type of ['image/jpeg', 'image/png'] as const) {
    it(`${type}: the file with its sidecar is Trusted with assertion.boxesHash.match; a flipped pixel-data byte or an inserted ${type === 'image/jpeg' ? 'segment' : 'chunk'} is a mismatch`, async () => {
      const report = await readWith(samples[type], sidecars[type]);
      expect(report.validation_state, report.summary).to.equal('Trusted');
      expect(report.status.success).to.include('assertion.boxesHash.match');
      expect(report.status.failure).to.deep.equal([]);
      expect(report.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: true });

      const tampered = await readWith(flipPixelByte(type, samples[type]), sidecars[type]);
      expect(tampered.validation_state).to.equal('Invalid');
      expect(tampered.status.failure).to.deep.equal(['assertion.boxesHash.mismatch']);
      expect(tampered.status.success).to.not.include('assertion.boxesHash.match');
      expect(tampered.failures).to.deep.equal([
        {
          code: 'assertion.boxesHash.mismatch',
          explanation: "the file does not hash to the manifest's c2pa.hash.boxes",
          in: 'manifest',
          ingredient: null,
          url: `self#jumbf=/c2pa/${tampered.active_manifest}/c2pa.assertions/c2pa.hash.boxes`,
        },
      ]);
      expect(tampered.summary).to.match(/^Invalid: assertion\.boxesHash\.mismatch in the manifest/);

      const inserted = await readWith(insertBox(type, samples[type]), sidecars[type]);
      expect(inserted.validation_state).to.equal('Invalid');
      expect(inserted.status.failure).to.deep.equal(['assertion.boxesHash.mismatch']);
    });
  }

  it("a JPEG with a JFIF APP0 has the store's placeholder after it (sharp writes none: after SOI), named in its sidecar's box hash", async () => {
    const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
    const jfif = insertAt(samples['image/jpeg'], 2, app0);
    const sidecar = await sidecarFor('image/jpeg', jfif);
    const report = await readWith(jfif, sidecar);
    expect(report.validation_state, report.summary).to.equal('Trusted');
    expect(report.status.success).to.include('assertion.boxesHash.match');
    // The same boxes with the placeholder after SOI (where it goes without APP0) do not describe this file.
    const { boxes } = boxHashFor('image/jpeg', jfif, { embedded: false });
    const afterSoi = [boxes[0], boxes[2], boxes[1], ...boxes.slice(3)];
    expect(await boxHashMatches(desk.onDisk(jfif), { boxes: afterSoi } as BoxHashAssertion, { claimAlg: 'sha256' })).to.equal(false);
    expect(await boxHashMatches(desk.onDisk(jfif), { boxes } as BoxHashAssertion, { claimAlg: 'sha256' })).to.equal(true);
    const moved = await readWith(insertAt(jfif, 2 + app0.length, comSegment('between')), sidecar);
    expect(moved.status.failure).to.deep.equal(['assertion.boxesHash.mismatch']);
  });

  it('c2pa-wasm signs JPEG and PNG with a data hash even when builder.prefer_box_hash is set (so the box hashes here are made by the test)', async () => {
    for (const type of ['image/jpeg', 'image/png'] as const) {
      const signed = await desk.embedded(type, samples[type], undefined, { builder: { prefer_box_hash: true } });
      const reader = await c2paWasm().WasmReader.fromBytes(type, new Uint8Array(signed), trustSettings({ trustAnchorsPem: desk.rootPem }));
      try {
        const manifest = (JSON.parse(reader.crJson()) as { manifests: { label: string; assertions: Record<string, unknown> }[] }).manifests.find((m) => m.label === reader.activeLabel())!;
        const bindings = Object.keys(manifest.assertions).filter((label) => label.startsWith('c2pa.hash.'));
        expect(bindings, type).to.deep.equal(['c2pa.hash.data']);
      } finally {
        reader.free();
      }
    }
  });

  it('a truncated, empty or garbage file does not throw: it is Invalid with assertion.boxesHash.mismatch', async () => {
    for (const type of ['image/jpeg', 'image/png'] as const) {
      const file = samples[type];
      const damaged = [file.subarray(0, Math.floor(file.length / 2)), file.subarray(0, 3), file.subarray(0, file.length - 1), Buffer.alloc(0), randomBytes(4096), Buffer.alloc(4096, 0xff)];
      for (const bytes of damaged) {
        const report = await readWith(bytes, sidecars[type]);
        expect(report.validation_state, `${type}, ${bytes.length} bytes`).to.equal('Invalid');
        expect(report.status.failure).to.deep.equal(['assertion.boxesHash.mismatch']);
      }
    }
  });

  it('boxHashMatches agrees with c2pa-rs on files it signed with the manifest embedded, original and tampered', async () => {
    const picture = sharp({ create: { width: 64, height: 40, channels: 3, background: '#208040' } });
    const exif = await picture.clone().jpeg({ quality: 70 }).withMetadata({ exif: { IFD0: { Copyright: 'Box Desk' } } }).toBuffer();
    const progressive = await picture.clone().jpeg({ progressive: true }).toBuffer();
    const pngWithExif = await picture.clone().png().withMetadata({ exif: { IFD0: { Artist: 'Box Desk' } } }).toBuffer();
    // A restart interval and one restart marker in the scan data (not decodable, but a box map does not decode).
    const jpeg = samples['image/jpeg'];
    const sos = jpegSegments(jpeg).find((s) => s.name === 'SOS')!;
    const withRestart = insertAt(insertAt(jpeg, sos.end + 8, Buffer.from([0xff, 0xd0])), sos.at, Buffer.from([0xff, 0xdd, 0x00, 0x04, 0x00, 0x01]));
    const jfif = insertAt(jpeg, 2, Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]));
    const sources: [string, BoxType, Buffer, boolean][] = [
      ['JPEG', 'image/jpeg', jpeg, false],
      ['JPEG with a JFIF APP0', 'image/jpeg', jfif, false],
      ['JPEG, minimal form', 'image/jpeg', jpeg, true],
      ['JPEG with Exif and ICC', 'image/jpeg', exif, false],
      ['progressive JPEG', 'image/jpeg', progressive, false],
      ['JPEG with a restart marker', 'image/jpeg', withRestart, false],
      ['PNG', 'image/png', samples['image/png'], false],
      ['PNG, minimal form', 'image/png', samples['image/png'], true],
      ['PNG with eXIf', 'image/png', pngWithExif, false],
    ];
    for (const [what, type, source, minimal] of sources) {
      const signed = await embedded(type, source, minimal);
      const boxes = type === 'image/jpeg' ? jpegSegments(signed) : pngChunks(signed);
      const last = boxes.at(-1)!;
      const store = type === 'image/jpeg' ? boxes.find((b) => b.name === 'APP11')! : boxes.find((b) => b.name === 'caBX')!;
      const variants: [string, Buffer][] = [
        ['as signed', signed],
        ['a pixel-data byte flipped', flipPixelByte(type, signed)],
        ['a box inserted', insertBox(type, signed)],
        ['a box inserted before the last', insertAt(signed, last.at, type === 'image/jpeg' ? comSegment('late') : textChunk('Comment\0late'))],
        ['data appended after the end', Buffer.concat([signed, Buffer.from('trailing bytes')])],
        ['a box appended after the end', Buffer.concat([signed, type === 'image/jpeg' ? comSegment('after') : textChunk('Comment\0after')])],
        ['the last box cut short', signed.subarray(0, signed.length - 1)],
        ['cut in half', signed.subarray(0, Math.floor(signed.length / 2))],
        ['a byte of the store changed', (() => { const c = Buffer.from(signed); c[store.end - 3]! ^= 0x01; return c; })()],
      ];
      if (type === 'image/jpeg') {
        const dqt = boxes.find((b) => b.name === 'DQT')!;
        variants.push(
          ['a fill byte before a marker', insertAt(signed, dqt.at, Buffer.from([0xff]))],
          ['a SOF3 segment inserted', insertAt(signed, dqt.at, Buffer.from([0xff, 0xc3, 0x00, 0x08, 8, 0, 1, 0, 1, 0]))],
          ['a short APP11 inserted', insertAt(signed, dqt.at, Buffer.from([0xff, 0xeb, 0x00, 0x06, 1, 2, 3, 4]))],
          ['a DRI of bad length inserted', insertAt(signed, dqt.at, Buffer.from([0xff, 0xdd, 0x00, 0x03, 0x00]))],
        );
      } else {
        const iend = boxes.find((b) => b.name === 'IEND')!;
        variants.push(['a chunk with a name that is not UTF-8', insertAt(signed, iend.at, Buffer.from([0, 0, 0, 0, 0xff, 0xfe, 0x41, 0x41, 0, 0, 0, 0]))]);
      }
      const { assertion } = await readable(type, signed);
      for (const [how, file] of variants) {
        const verdict = await c2paRsVerdict(type, file);
        const theirs = verdict === 'unreadable' ? false : verdict.matches;
        expect(await boxHashMatches(desk.onDisk(file), assertion, { claimAlg: 'sha256' }), `${what}, ${how}: c2pa-rs says ${verdict === 'unreadable' ? 'unreadable' : theirs}`).to.equal(theirs);
      }
      expect((await readable(type, signed)).matches, `${what} as signed`).to.equal(true);
    }
  });

  it("boxHashMatches cannot judge an unknown algorithm, exclusions, an assertion c2pa-rs would not read or a GIF; without an alg it takes the claim's", async () => {
    const signed = await embedded('image/jpeg', samples['image/jpeg']);
    const file = desk.onDisk(signed);
    const { assertion } = await readable('image/jpeg', signed);
    const boxes = assertion.boxes!;
    expect(await boxHashMatches(file, assertion)).to.equal(true);
    const withEntry = (i: number, change: object) => ({ boxes: boxes.map((b, k) => (k === i ? { ...b, ...change } : b)) });
    expect(await boxHashMatches(file, withEntry(0, { alg: 'md5' }))).to.equal(undefined);
    expect(await boxHashMatches(file, withEntry(3, { exclusions: [{ start: 4, length: 2 }] }))).to.equal(undefined);
    expect(await boxHashMatches(file, withEntry(3, { exclusions: [] })), 'an empty exclusions list is malformed').to.equal(false);
    for (const bad of [{ boxes: 'SOI' }, { boxes: [{ names: 'SOI', hash: [], pad: [] }] }, { boxes: [{ names: ['SOI'], hash: "b64'!'", pad: [] }] }, {}]) {
      expect(await boxHashMatches(file, bad as unknown as BoxHashAssertion)).to.equal(undefined);
    }
    expect(await boxHashMatches(file, { boxes: [] }), 'no boxes: "No box hash found"').to.equal(false);
    const { alg: _sha256, ...noAlg } = boxes[0]!;
    expect(await boxHashMatches(file, { boxes: [noAlg, ...boxes.slice(1)] }, { claimAlg: 'sha256' })).to.equal(true);
    expect(await boxHashMatches(file, { boxes: [noAlg, ...boxes.slice(1)] }, { claimAlg: 'sha512' })).to.equal(false);
    expect(await boxHashMatches(file, { boxes: [noAlg, ...boxes.slice(1)] }), 'no alg anywhere').to.equal(false);
    // A PNG's signature may be left out of the assertion; other boxes may not.
    const png = await embedded('image/png', samples['image/png']);
    const pngAssertion = (await readable('image/png', png)).assertion;
    expect(await boxHashMatches(desk.onDisk(png), { boxes: pngAssertion.boxes!.slice(1) })).to.equal(true);
    expect(await boxHashMatches(desk.onDisk(png), { boxes: pngAssertion.boxes!.slice(2) })).to.equal(false);
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).gif().toBuffer();
    expect(await boxHashMatches(desk.onDisk(gif), assertion), 'GIF: no box map here').to.equal(undefined);
  });

  it('a PNG of 20,000 chunks is checked entry by entry; more entries than the limit throw BindingLimitExceeded before the file is read', async () => {
    const png = samples['image/png'];
    const iend = png.length - 12;
    const long = Buffer.concat([png.subarray(0, iend), ...Array.from({ length: 20_000 }, (_, i) => textChunk(`n${i}`)), png.subarray(iend)]);
    const assertion = boxHashFor('image/png', long, { embedded: false }) as BoxHashAssertion;
    expect(assertion.boxes).to.have.length.greaterThan(20_000);
    expect(await boxHashMatches(desk.onDisk(long), assertion)).to.equal(true);
    const changed = Buffer.from(long);
    changed[iend - 20] ^= 0x01; // inside one of the last text chunks
    expect(await boxHashMatches(desk.onDisk(changed), assertion)).to.equal(false);

    const entries = Array.from({ length: BINDING_LIMITS.boxHashEntries + 1 }, () => assertion.boxes![1]!);
    const refused = await boxHashMatches(desk.onDisk(long), { boxes: entries }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(BindingLimitExceeded);
    expect(refused).to.deep.include({ part: 'assertion', message: "the manifest's box hash lists 100,001 entries, more than the 100,000 checked" });
  });

  it('POST /v1/verify: a JPEG with its .c2pa sidecar is Trusted with assertion.boxesHash.match, a tampered copy Invalid', async () => {
    const api = await startTestApi({ TRUST_ANCHORS_FILE: desk.chain.files.root }, { issuer: false });
    try {
      const sidecar = Buffer.from(sidecars['image/jpeg']);
      const ok = (await request(api.app).post('/v1/verify').attach('file', samples['image/jpeg'], 'picture.jpg').attach('manifest', sidecar, 'picture.c2pa').expect(200)).body;
      expect(ok.validation_state).to.equal('Trusted');
      expect(ok.status.success).to.include('assertion.boxesHash.match');
      expect(ok.manifest_source).to.deep.include({ kind: 'sidecar', asset_checked: true });
      expect(ok.manifest.title).to.equal('picture.jpeg');

      const bad = (await request(api.app).post('/v1/verify').attach('file', flipPixelByte('image/jpeg', samples['image/jpeg']), 'picture.jpg').attach('manifest', sidecar, 'picture.c2pa').expect(200)).body;
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.include('assertion.boxesHash.mismatch');
    } finally {
      await api.close();
    }
  });
});
