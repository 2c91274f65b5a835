import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { C2paError } from '../../shared/c2pa/errors.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { activeManifestLabel } from '../../shared/c2pa/manifest-store-label.js';
import { readManifestStore } from '../../shared/c2pa/read-asset.js';
import { signBytes } from '../../shared/c2pa/sign-asset.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture, opensslTimestamper } from './helpers.js';

/** The active manifest's label read from the JUMBF boxes, against c2pa-rs's own reading of the same stores. */
describe('c2pa: activeManifestLabel (the manifest store, JUMBF only)', function () {
  this.timeout(60_000);
  let chain: OpensslChain;

  before(async () => {
    chain = await makeOpensslChain();
  });
  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  const sign = async (bytes: Uint8Array, title: string) => {
    const timestamper = await opensslTimestamper(chain);
    return signBytes({
      bytes,
      mimeType: 'image/jpeg',
      manifest: (sourceHasManifest) => buildManifestDefinition({ title, creator: 'Ada' }, { sourceHasManifest }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      timestamper,
      trustAnchorsPem: chain.pem.root,
    });
  };

  it('names the active manifest c2pa-rs names, for a store of one manifest and of two (a signed file signed again)', async () => {
    const first = await sign(await fixture('photo.jpg'), 'First');
    const second = await sign(first.asset, 'Second');
    for (const store of [first.manifestStore, second.manifestStore]) {
      const report = await readManifestStore(store, { trustAnchorsPem: chain.pem.root });
      expect(activeManifestLabel(store)).to.equal(report.active_manifest).and.to.match(/^urn:c2pa:/);
    }
    expect(activeManifestLabel(second.manifestStore)).to.not.equal(activeManifestLabel(first.manifestStore));
  });

  it('refuses bytes that are no manifest store, and a truncated one', async () => {
    const { manifestStore } = await sign(await fixture('photo.jpg'), 'Cut');
    for (const bad of [new Uint8Array(0), Buffer.from('not a store at all'), manifestStore.subarray(0, 40)]) {
      expect(() => activeManifestLabel(bad)).to.throw(C2paError);
    }
  });
});
