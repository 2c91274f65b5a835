/**
 * The contract every media format descriptor keeps (shared/media/format-descriptor.ts), run over each format of the
 * registry (shared/media/formats.ts) with its sample and damaged copy (./samples.ts). A new format is tested by
 * adding it to the registry and its sample and damaged copy to ./samples.ts.
 *
 * It describes itself consistently; its sniff alone claims its sample; the sample is identified by content, from a
 * file and from bytes; damaged or cut short it is refused as corrupt, naming the format; its duration reader, pixel
 * check and size bound answer for it; and c2pa-rs (the WASM build the service runs) signs it and reads it back
 * Trusted, so the registry cannot claim a format the library does not embed into. The signed file is still
 * recognised, structure and all, as the same format (it may be uploaded again to be signed as opened), and signing
 * it again with it as parent works.
 */
import { readFileSync, rmSync, truncateSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { sniffMediaType } from '../../shared/c2pa/media-type.js';
import { hasManifest, readAsset } from '../../shared/c2pa/read-asset.js';
import { runOnBytes } from '../../shared/media/byte-walk.js';
import { mediaDurationSeconds } from '../../shared/media/duration.js';
import { extensionFor, formatFor, identifyMedia, identifyMediaBytes, isMediaMimeType, MEDIA_FORMATS, MEDIA_MIME_TYPES, type MediaMimeType } from '../../shared/media/formats.js';
import { withFormatTable } from '../../shared/media/format-table.js';
import { assertImageDecodes, imageDimensions } from '../../shared/media/image-pixels.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { DAMAGE, makeSamples, rejection, signSample, type Samples } from './samples.js';

describe('media: the format contract, over every descriptor of the registry', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let samples: Samples;
  let dir: string;
  const file = async (name: string, bytes: Uint8Array) => {
    const p = path.join(dir, name);
    await writeFile(p, bytes);
    return p;
  };

  const sign = (bytes: Uint8Array, mimeType: MediaMimeType, sourceHasManifest = false) => signSample(chain, bytes, mimeType, sourceHasManifest);

  before(async function () {
    [chain, { samples, dir }] = await Promise.all([makeOpensslChain(), makeSamples()]);
  });
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the registry: one entry per MIME type; a type it does not list has no format', function () {
    expect(new Set(MEDIA_FORMATS.map((f) => f.mimeType)).size).to.equal(MEDIA_FORMATS.length);
    expect(extensionFor('image/jpeg')).to.equal('jpg');
    expect(extensionFor('video/quicktime')).to.equal('mov');
    expect(extensionFor('audio/mp4')).to.equal('m4a');
    expect(extensionFor('application/pdf')).to.equal('pdf');
    expect(() => extensionFor('application/zip')).to.throw(/no media format/);
    expect(formatFor('application/zip')).to.equal(undefined);
    expect(isMediaMimeType('application/zip')).to.equal(false);
  });

  it("the README's table of formats is the registry's (npx tsx bin/readme-formats.ts writes it)", function () {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(withFormatTable(readme) === readme, 'README.md is out of step with the registry: run npx tsx bin/readme-formats.ts').to.equal(true);
  });

  for (const format of MEDIA_FORMATS) {
    describe(`${format.label} (${format.mimeType})`, function () {
      const signed: Uint8Array[] = [];

      it('describes itself: a MIME type of its kind, extensions, label and notes; the registry finds it by its MIME type alone', function () {
        expect(format.mimeType.split('/')[0]).to.equal(format.kind === 'document' ? 'application' : format.kind);
        expect(format.label).to.match(/^\S.*\S$/);
        expect(format.notes).to.match(/^\S.*\S$/);
        for (const ext of format.extensions) expect(ext).to.match(/^[a-z0-9]+$/);
        expect(format.extension).to.equal(format.extensions[0]);
        expect(formatFor(format.mimeType)).to.equal(format);
        expect(extensionFor(format.mimeType)).to.equal(format.extension);
        expect(isMediaMimeType(format.mimeType)).to.equal(true);
        expect(MEDIA_MIME_TYPES).to.include(format.mimeType);
        const others = MEDIA_FORMATS.filter((f) => f !== format);
        expect(others.map((f) => f.mimeType)).not.to.include(format.mimeType);
        for (const ext of format.extensions) expect(others.some((f) => f.extensions.includes(ext)), `extension ${ext}`).to.equal(false);
        // Readers that only mean something for one kind.
        if (format.pixelDataChecked) expect(format.kind).to.equal('image');
        if (format.durationSeconds) expect(format.kind).to.not.equal('image');
      });

      it('its sniff alone claims its sample (the sniffs are exclusive), and no look-alike refusal names it', function () {
        const sample = samples[format.mimeType];
        expect(sample, 'a sample in test/media/samples.ts').to.be.instanceOf(Buffer);
        expect(sample.length).to.be.below(100 * 1024);
        const head = sample.subarray(0, 32);
        const claimedBy = MEDIA_FORMATS.filter((f) => runOnBytes(f.sniff(head, sample.length), sample)).map((f) => f.mimeType);
        expect(claimedBy).to.deep.equal([format.mimeType]);
        for (const f of MEDIA_FORMATS) if (f.refuse) expect(runOnBytes(f.refuse(head, sample.length), sample), `${f.label}'s refusal`).to.equal(undefined);
      });

      it('is identified by content, from a file whatever its name and from bytes; sniffMediaType agrees', async function () {
        const sample = samples[format.mimeType];
        const p = await file(`sample-${format.extension}.bin`, sample);
        const found = await identifyMedia(p);
        expect(found).to.equal(format);
        expect(await identifyMedia(p, { checkStructure: false })).to.equal(format);
        expect(identifyMediaBytes(sample)).to.equal(format);
        expect(sniffMediaType(sample)).to.equal(format.mimeType);
      });

      it(`refuses a damaged copy (${DAMAGE[format.mimeType][0]}) as corrupt; without the structure check it is still ${format.extension}`, async function () {
        const damaged = DAMAGE[format.mimeType][1](samples[format.mimeType]);
        const p = await file(`damaged.${format.extension}`, damaged);
        const err = await rejection(p);
        expect(err?.reason, err?.message).to.equal('corrupt');
        // Verification skips the structure walk: c2pa-rs is the judge of a damaged file.
        expect((await identifyMedia(p, { checkStructure: false })).mimeType).to.equal(format.mimeType);
      });

      for (const fraction of [0.3, 0.6, 0.9]) {
        it(`refuses its sample cut to ${fraction * 100}% as corrupt, naming the format`, async function () {
          const whole = samples[format.mimeType];
          const cut = whole.subarray(0, Math.floor(whole.length * fraction));
          const err = await rejection(await file(`cut.${format.extension}`, cut));
          expect(err?.reason, `${format.label} cut to ${cut.length} of ${whole.length} bytes: ${err?.message}`).to.equal('corrupt');
          expect(err?.message).to.be.a('string').and.not.equal('');
          // A DNG cut inside its first IFD can no longer be told from TIFF: it is still refused as a damaged TIFF.
          expect(err?.mimeType, format.label).to.equal(format.mimeType === 'image/x-adobe-dng' && err?.mimeType === 'image/tiff' ? 'image/tiff' : format.mimeType);
        });
      }

      it('answers for its duration, pixels and size bound', async function () {
        const sample = samples[format.mimeType];
        const p = await file(`readers.${format.extension}`, sample);
        // The video and audio samples play for 0.3 s.
        const seconds = await mediaDurationSeconds(p, format.mimeType);
        if (format.durationSeconds) expect(seconds).to.be.within(0.2, 0.6);
        else expect(seconds).to.equal(undefined);
        if (format.pixelDataChecked) {
          const size = await imageDimensions(sample);
          expect(size?.width).to.be.above(0);
          expect(size?.height).to.be.above(0);
          await assertImageDecodes(sample, format.mimeType, 1_000_000);
        }
        if (format.maxBytes !== undefined) {
          expect(sample.length).to.be.below(format.maxBytes);
          // One byte over: padded with spaces (an SVG stays text), or for a bound of hundreds of MiB (AVI) with sparse
          // zeros no memory or disk holds; the bound is checked before the structure is.
          const padded = format.maxBytes <= 64 * 2 ** 20;
          const big = await file(`big.${format.extension}`, padded ? Buffer.concat([sample, Buffer.alloc(format.maxBytes - sample.length + 1, 0x20)]) : sample);
          if (!padded) truncateSync(big, format.maxBytes + 1);
          expect(await rejection(big, false)).to.include({ reason: 'too_large', mimeType: format.mimeType });
        }
      });

      it('c2pa-rs signs it and reads it back Trusted with the manifest', async function () {
        const bytes = samples[format.mimeType];
        expect(await hasManifest(bytes, format.mimeType)).to.equal(false);
        const out = await sign(bytes, format.mimeType);
        signed.push(out);
        const report = await readAsset(out, format.mimeType, { trustAnchorsPem: chain.pem.root });
        expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
        expect(report.status.failure).to.deep.equal([]);
        expect(report.manifest).to.deep.include({ title: `sample.${format.mimeType.split('/')[1]!.split('.').at(-1)}`, creator: 'Ada Lovelace', actions: ['c2pa.created'] });
      });

      it('is the same format after signing, structure included', function () {
        const out = signed[0];
        if (!out) this.skip();
        expect(identifyMediaBytes(out).mimeType).to.equal(format.mimeType);
      });

      it('signs the signed file again with it as parent ingredient (c2pa.opened), Trusted', async function () {
        const first = signed[0];
        if (!first) this.skip();
        const before = await readAsset(first, format.mimeType, { trustAnchorsPem: chain.pem.root });
        const second = await sign(first, format.mimeType, true);
        const report = await readAsset(second, format.mimeType, { trustAnchorsPem: chain.pem.root });
        expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
        expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
        expect(report.manifest?.ingredients.map((i) => [i.relationship, i.active_manifest])).to.deep.equal([['parentOf', before.active_manifest]]);
        expect(identifyMediaBytes(second).mimeType).to.equal(format.mimeType);
      });
    });
  }
});
