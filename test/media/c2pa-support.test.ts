import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { describeWasmError } from '../../shared/c2pa/errors.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { hasManifest, readAsset } from '../../shared/c2pa/read-asset.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { identifyMediaBytes, MEDIA_FORMATS, MediaRejectedError, type MediaMimeType } from '../../shared/media/formats.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { makeSamples, makeVariants, topLevelBoxes, type Samples } from './samples.js';

/**
 * The registry (shared/media/formats.ts) against c2pa-rs at run time: every format it lists is signed through
 * signAsset and read back Trusted by c2pa-rs (the WASM build the service runs), so the documented list cannot claim
 * a format the library does not embed into. The signed file is still recognised, structure and all, as the same
 * format (it may be uploaded again to be signed as opened), and signing it again with it as parent works.
 */
describe('media: every registry format signs and reads back Trusted with c2pa-rs', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let samples: Samples;
  let dir: string;
  const signed = new Map<MediaMimeType, Uint8Array>();

  const sign = (bytes: Uint8Array, mimeType: MediaMimeType, sourceHasManifest = false) =>
    signAsset({
      bytes,
      mimeType,
      manifest: buildManifestDefinition({ title: `sample.${mimeType.split('/')[1]}`, creator: 'Ada Lovelace' }, { sourceHasManifest }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      trustAnchorsPem: chain.pem.root,
    });

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  before(async function () {
    [chain, { samples, dir }] = await Promise.all([makeOpensslChain(), makeSamples()]);
  });

  it('has a sample for every format of the registry, recognised as that format', function () {
    for (const format of MEDIA_FORMATS) {
      const sample = samples[format.mimeType];
      expect(sample, format.mimeType).to.be.instanceOf(Buffer);
      expect(sample.length, format.mimeType).to.be.below(100 * 1024);
      expect(identifyMediaBytes(sample).mimeType, format.mimeType).to.equal(format.mimeType);
    }
  });

  for (const format of MEDIA_FORMATS) {
    describe(`${format.label} (${format.mimeType})`, function () {
      it('signs, and reads back Trusted with the manifest', async function () {
        const bytes = samples[format.mimeType];
        expect(await hasManifest(bytes, format.mimeType)).to.equal(false);
        const out = await sign(bytes, format.mimeType);
        signed.set(format.mimeType, out);
        const report = await readAsset(out, format.mimeType, { trustAnchorsPem: chain.pem.root });
        expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
        expect(report.status.failure).to.deep.equal([]);
        expect(report.manifest).to.deep.include({ title: `sample.${format.mimeType.split('/')[1]}`, creator: 'Ada Lovelace', actions: ['c2pa.created'] });
      });

      it('is the same format after signing, structure included', function () {
        const out = signed.get(format.mimeType);
        if (!out) this.skip();
        expect(identifyMediaBytes(out).mimeType).to.equal(format.mimeType);
      });

      it('signs the signed file again with it as parent ingredient (c2pa.opened), Trusted', async function () {
        const first = signed.get(format.mimeType);
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

  describe('other shapes of the formats (fragmented MP4, VBR MP3, BigTIFF, animated GIF, ...)', function () {
    it('are recognised, sign Trusted, and are still recognised after signing', async function () {
      for (const [label, mimeType, bytes] of await makeVariants(dir)) {
        expect(identifyMediaBytes(bytes).mimeType, label).to.equal(mimeType);
        const out = await sign(bytes, mimeType);
        const report = await readAsset(out, mimeType, { trustAnchorsPem: chain.pem.root });
        expect(report.validation_state, `${label}: ${JSON.stringify(report.status)}`).to.equal('Trusted');
        expect(identifyMediaBytes(out).mimeType, `${label} signed`).to.equal(mimeType);
      }
    });
  });

  /** c2pa-rs directly (signAsset refuses what the registry does not list). */
  async function wasmSign(bytes: Uint8Array, mimeType: string): Promise<string> {
    const { WasmBuilder } = c2paWasm();
    const definition = buildManifestDefinition({ title: 'probe', creator: 'Ada Lovelace' }, { sourceHasManifest: false });
    const builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: mimeType }), trustSettings(chain.pem.root));
    try {
      await builder.signAndGetManifestBytes(coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] }), [], mimeType, new BytesBlob(bytes, mimeType));
      return 'signed';
    } catch (err) {
      return describeWasmError(err);
    } finally {
      builder.free();
    }
  }

  describe('what the registry refuses because c2pa-rs cannot sign it (re-checked here)', function () {
    it('an old QuickTime file without ftyp: c2pa-rs says UnsupportedType; identify refuses it as unsupported', async function () {
      const mov = samples['video/quicktime'];
      const ftyp = topLevelBoxes(mov)[0]!;
      const old = new Uint8Array(mov.subarray(ftyp.size));
      expect(await wasmSign(old, 'video/quicktime')).to.match(/UnsupportedType/);
      const err = (() => { try { identifyMediaBytes(old); } catch (e) { return e; } })() as MediaRejectedError;
      expect(err).to.be.instanceOf(MediaRejectedError);
      expect(err.reason).to.equal('unsupported');
      expect(err.message).to.match(/without a ftyp box/);
    });

    it('a bare JPEG XL codestream: c2pa-rs wants the container; identify refuses it as unsupported', async function () {
      const codestream = new Uint8Array(readFileSync(path.join(dir, 'codestream.jxl')));
      expect(await wasmSign(codestream, 'image/jxl')).to.match(/JPEG XL container/);
      expect(() => identifyMediaBytes(codestream)).to.throw(MediaRejectedError, /bare JPEG XL codestream/);
    });
  });
});
