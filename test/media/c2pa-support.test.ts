import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { describeWasmError } from '../../shared/c2pa/errors.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { identifyMediaBytes, MediaRejectedError, type MediaMimeType } from '../../shared/media/formats.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { makeSamples, makeVariants, signSample, topLevelBoxes, type Samples } from './samples.js';

/**
 * The registry (shared/media/formats.ts) against c2pa-rs at run time, beyond each format's sample (which
 * test/media/format-contract.test.ts signs and reads back): other shapes of the formats sign Trusted, and what the
 * registry refuses c2pa-rs indeed cannot sign.
 */
describe('media: registry formats and c2pa-rs, other shapes and refusals', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let samples: Samples;
  let dir: string;

  const sign = (bytes: Uint8Array, mimeType: MediaMimeType, sourceHasManifest = false) => signSample(chain, bytes, mimeType, sourceHasManifest);

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  before(async function () {
    [chain, { samples, dir }] = await Promise.all([makeOpensslChain(), makeSamples()]);
  });

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
    const builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: mimeType }), trustSettings({ trustAnchorsPem: chain.pem.root }));
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
