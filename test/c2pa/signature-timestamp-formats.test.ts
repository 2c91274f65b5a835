/**
 * Honest timestamps in every format: the service finds the active manifest's COSE signature in the file (JPEG's APP11
 * segments, or the one run of bytes other formats carry the store in), reads the RFC 3161 token's certificates and
 * calls the timestamp trusted only when its TSA chains to an anchor given, in memory and from disk alike (GIF's
 * sub-blocks and SVG's base64 store are read from memory only: images are always read whole).
 */
import { writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { checkedTimestamp } from '../../shared/c2pa/signature-timestamp.js';
import type { MediaMimeType } from '../../shared/media/formats.js';
import type { Anchor } from '../../shared/trust/store.js';
import { makeSamples, type Samples } from '../media/samples.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { opensslTimestamper } from './helpers.js';

/** Images whose store is not one run of bytes: always read whole (never over MAX_UPLOAD_BYTES), so never from disk. */
const MEMORY_ONLY = new Set(['image/gif', 'image/svg+xml']);

describe('c2pa: timestamps checked by the service in every format', function () {
  this.timeout(240_000);
  let chain: OpensslChain;
  let other: OpensslChain;
  let samples: Samples;
  let samplesDir: string;
  let anchors: Anchor[];
  let wrongAnchors: Anchor[];

  const anchor = (pem: string): Anchor => ({ pem, certificate: new X509Certificate(pem), source: 'operator_anchor' });

  before(async () => {
    [chain, other, { dir: samplesDir, samples }] = await Promise.all([makeOpensslChain({ cn: 'Stamped' }), makeOpensslChain({ cn: 'Elsewhere' }), makeSamples()]);
    anchors = [anchor(chain.pem.root)];
    wrongAnchors = [anchor(other.pem.root)];
  });
  after(() => {
    for (const dir of [chain?.dir, other?.dir, samplesDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds and checks the token of each format, from the bytes and from the file', async () => {
    const timestamper = await opensslTimestamper(chain);
    const seen: string[] = [];
    for (const [mimeType, bytes] of Object.entries(samples) as [MediaMimeType, Buffer][]) {
      const signed = await signAsset({
        bytes: new Uint8Array(bytes),
        mimeType,
        manifest: buildManifestDefinition({ title: `t.${mimeType.split('/')[1]}`, creator: 'Ada' }, { sourceHasManifest: false }),
        key: chain.keys.leaf,
        chainDer: [chain.der.leaf, chain.der.subCa],
        timestamper,
      });
      const report = await readAsset(signed, mimeType, { trustAnchorsPem: chain.pem.root });
      expect(report.timestamp?.validated, mimeType).to.equal(true);
      const file = path.join(samplesDir, `signed-${mimeType.replace(/\W/g, '-')}`);
      writeFileSync(file, signed);
      const fromBytes = await checkedTimestamp(report.timestamp!, report.active_manifest, signed, anchors);
      const elsewhere = await checkedTimestamp(report.timestamp!, report.active_manifest, signed, wrongAnchors);
      expect(elsewhere, mimeType).to.deep.include({ trusted: false, trust_source: null });
      expect(fromBytes, mimeType).to.deep.include({ validated: true, trusted: true, trust_source: 'operator_anchor' });
      seen.push(mimeType);
      if (MEMORY_ONLY.has(mimeType)) continue;
      expect(await checkedTimestamp(report.timestamp!, report.active_manifest, file, anchors), mimeType).to.deep.equal(fromBytes);
    }
    expect(seen).to.have.length(Object.keys(samples).length);
  });

  it('takes only the store of the active manifest c2pa-rs names', async () => {
    const signed = await signAsset({
      bytes: new Uint8Array(samples['image/png']),
      mimeType: 'image/png',
      manifest: buildManifestDefinition({ title: 't.png', creator: 'Ada' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      timestamper: await opensslTimestamper(chain),
    });
    const report = await readAsset(signed, 'image/png', { trustAnchorsPem: chain.pem.root });
    expect(await checkedTimestamp(report.timestamp!, 'urn:c2pa:not-this-one', signed, anchors)).to.deep.include({ trusted: false, trust_source: null });
  });
});
