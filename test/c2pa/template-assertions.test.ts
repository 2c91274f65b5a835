import { rmSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { expect } from 'chai';
import jpeg from 'jpeg-js';
import { buildManifestDefinition, type ManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { mergeManifest, parseManifestDefaults, parseManifestRequest } from '../../shared/c2pa/parse-manifest.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture } from './helpers.js';

/**
 * A template's defaults merged under a sign request's fields, signed through real c2pa-rs (WASM) and read back:
 * the publisher and copyright (cawg.metadata), the CAWG training and data mining assertion, the claim thumbnail.
 */
describe('c2pa: manifests from templates', function () {
  let chain: OpensslChain;
  const template = parseManifestDefaults({
    creator: 'Template Author',
    publisher: { name: 'Daily Planet', url: 'https://planet.example/' },
    copyrightHolder: { name: 'Daily Planet Ltd' },
    copyrightNotice: '© 2025 Daily Planet Ltd',
    trainingMining: {
      'cawg.ai_generative_training': { use: 'notAllowed' },
      'cawg.ai_training': { use: 'constrained', constraint_info: 'licensing@planet.example' },
      'cawg.ai_inference': { use: 'allowed' },
      'cawg.data_mining': { use: 'notAllowed' },
    },
    thumbnail: true,
  });
  // The request overrides the template's creator.
  const manifest = mergeManifest(parseManifestRequest({ title: 'Harbour at dawn', creator: 'Jane Doe' }), template);

  const sign = (bytes: Uint8Array, mimeType: SignableMimeType, definition: ManifestDefinition, onThumbnailError?: (err: unknown) => void) =>
    signAsset({ bytes, mimeType, manifest: definition, key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa], onThumbnailError });
  const read = (bytes: Uint8Array, mimeType: SignableMimeType) => readAsset(bytes, mimeType, { trustAnchorsPem: chain.pem.root });

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
  });

  for (const [name, mimeType] of [['photo.jpg', 'image/jpeg'], ['graphic.png', 'image/png']] as const) {
    it(`${mimeType}: Trusted, with the request's creator, the template's publisher, copyright, training-mining choices and a thumbnail`, async function () {
      const signed = await sign(await fixture(name), mimeType, buildManifestDefinition(manifest, { sourceHasManifest: false }));
      const report = await read(signed, mimeType);
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.status.failure).to.deep.equal([]);
      expect(report.status.success.filter((c) => c.startsWith('assertion.'))).to.include.members(['assertion.hashedURI.match', 'assertion.dataHash.match']);
      expect(report.manifest).to.deep.include({
        title: 'Harbour at dawn',
        creator: 'Jane Doe',
        publisher: 'Daily Planet',
        copyright_holder: 'Daily Planet Ltd',
        copyright_notice: '© 2025 Daily Planet Ltd',
        thumbnail: { format: 'image/jpeg' },
      });
      expect(report.manifest?.assertions).to.deep.equal(['c2pa.actions.v2', 'cawg.metadata', 'cawg.training-mining']);
      expect(report.manifest?.training_mining).to.deep.equal(template.trainingMining);

      // The thumbnail is a JPEG of the image at its own size (both fixtures are under the 512 px long edge).
      const { WasmReader } = c2paWasm();
      const reader = await WasmReader.fromBytes(mimeType, signed, trustSettings({ trustAnchorsPem: chain.pem.root }));
      try {
        const json = JSON.parse(reader.json()) as { active_manifest: string; manifests: Record<string, { thumbnail: { identifier: string } }> };
        const thumb = reader.resourceToBytes(json.manifests[json.active_manifest]!.thumbnail.identifier);
        const source = mimeType === 'image/jpeg' ? jpeg.decode(await fixture(name)) : undefined;
        const decoded = jpeg.decode(thumb);
        if (source) expect([decoded.width, decoded.height]).to.deep.equal([source.width, source.height]);
        expect(decoded.width).to.be.at.most(512);
      } finally {
        reader.free();
      }
    });
  }

  it('c2pa-rs 0.91 keeps cawg.training-mining and the C2PA 1.x c2pa.training-mining alike: Trusted, listed, no assertion failure', async function () {
    // Why cawg.training-mining: C2PA 2.x dropped c2pa.training-mining and CAWG re-published it under cawg.*; the
    // validator treats both as plain JSON assertions, so nothing speaks for the deprecated label.
    const photo = await fixture('photo.jpg');
    const base = buildManifestDefinition({ title: 'T', creator: 'C' }, { sourceHasManifest: false });
    for (const [label, prefix] of [['cawg.training-mining', 'cawg'], ['c2pa.training-mining', 'c2pa']] as const) {
      const entries = { [`${prefix}.ai_training`]: { use: 'notAllowed' }, [`${prefix}.data_mining`]: { use: 'constrained', constraint_info: 'ask' } };
      const definition = { ...base, assertions: [...base.assertions, { label, data: { entries } }] };
      const report = await read(await sign(photo, 'image/jpeg', definition), 'image/jpeg');
      expect(report.validation_state, label).to.equal('Trusted');
      expect([...report.status.failure, ...report.status.informational].filter((c) => c.startsWith('assertion.')), label).to.deep.equal([]);
      expect(report.manifest?.assertions, label).to.include(label);
      expect(report.manifest?.training_mining, label).to.deep.equal(entries);
    }
  });

  it("c2pa-rs's own thumbnail setting does nothing in the WASM build; without the flag there is no thumbnail", async function () {
    const photo = await fixture('photo.jpg');
    const definition = buildManifestDefinition({ title: 'T', creator: 'C' }, { sourceHasManifest: false });
    const { WasmBuilder } = c2paWasm();
    const { coseSigner } = await import('../../shared/c2pa/cose-sign1.js');
    const builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: 'image/jpeg' }), JSON.stringify({ builder: { thumbnail: { enabled: true } } }));
    try {
      const signed = await builder.sign(coseSigner({ key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] }), [], 'image/jpeg', new BytesBlob(photo, 'image/jpeg'));
      expect((await read(signed, 'image/jpeg')).manifest?.thumbnail).to.equal(null);
    } finally {
      builder.free();
    }
    expect((await read(await sign(photo, 'image/jpeg', definition), 'image/jpeg')).manifest?.thumbnail).to.equal(null);
  });

  it('an image the thumbnail maker refuses is signed without a thumbnail, and the caller is told', async function () {
    // A PNG whose header claims more pixels than thumbnails are made of (c2pa-rs never decodes the pixels).
    const png = Buffer.from(await fixture('graphic.png'));
    png.writeUInt32BE(10_000, 16);
    png.writeUInt32BE(10_000, 20);
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    const errors: unknown[] = [];
    const signed = await sign(png, 'image/png', buildManifestDefinition({ ...manifest, title: 'big' }, { sourceHasManifest: false }), (err) => errors.push(err));
    expect(errors).to.have.length(1);
    expect(String(errors[0])).to.match(/no claim thumbnail: the image is over 40 megapixels/);
    const report = await read(signed, 'image/png');
    expect(report.validation_state).to.equal('Trusted');
    expect(report.manifest?.thumbnail).to.equal(null);
    expect(report.manifest?.publisher).to.equal('Daily Planet');
  });
});
