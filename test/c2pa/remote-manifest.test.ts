/**
 * Signing with the manifest kept remote (shared/c2pa/remote-manifest.ts): every format c2pa-wasm signs itself carries
 * the manifest's URL as its XMP reference and no store, and its store, labelled as preset, reads Trusted against the
 * file; the formats that cannot carry a remote manifest are refused with the reason, before anything is written.
 * Real c2pa-rs (WASM), a chain made by openssl, a sample of every format of the registry.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { activeManifestLabel } from '../../shared/c2pa/manifest-store-label.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset, readDetachedManifest } from '../../shared/c2pa/read-asset.js';
import { RemoteManifestError } from '../../shared/c2pa/reader-open.js';
import { newRemoteManifestTarget, RemoteManifestUnsupportedError, remoteManifestRefusal } from '../../shared/c2pa/remote-manifest.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { formatFor } from '../../shared/media/formats.js';
import { makeSamples, type Samples } from '../media/samples.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { flipByte } from './helpers.js';

const REMOTE_SOURCE = { kind: 'remote', url: null, asset_checked: true } as const;

describe('c2pa: signing with a remote manifest', function () {
  this.timeout(180_000);
  let chain: OpensslChain;
  let dir: string;
  let samples: Samples;

  before(async () => {
    chain = await makeOpensslChain({ cn: 'Remote Publisher' });
    ({ dir, samples } = await makeSamples());
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(chain.dir, { recursive: true, force: true });
  });

  const signRemote = (mimeType: SignableMimeType, sourcePath: string, outputPath: string) => {
    const target = newRemoteManifestTarget('https://repository.example');
    const signed = signFile({
      sourcePath,
      outputPath,
      mimeType,
      manifest: buildManifestDefinition({ title: path.basename(sourcePath), creator: 'Remote Desk' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      remoteManifest: target,
    });
    return { target, signed };
  };

  it('every format c2pa-wasm signs itself: the file names the URL and holds no store; the store, under the preset label, reads Trusted against it', async () => {
    const signable = Object.entries(samples).filter(([mimeType]) => remoteManifestRefusal(mimeType) === undefined);
    expect(signable.map(([m]) => m)).to.include.members(['image/jpeg', 'image/png', 'image/svg+xml', 'video/x-msvideo', 'application/pdf']);
    for (const [mimeType, bytes] of signable) {
      const sourcePath = path.join(dir, `remote-source-${formatFor(mimeType)!.extension}`);
      const outputPath = `${sourcePath}.signed`;
      writeFileSync(sourcePath, bytes);
      const { target, signed } = signRemote(mimeType as SignableMimeType, sourcePath, outputPath);
      const { manifestStore } = await signed;
      const file = await readFile(outputPath);
      expect(file.includes(Buffer.from(target.url)), `${mimeType} carries its manifest URL`).to.equal(true);
      expect(activeManifestLabel(manifestStore), mimeType).to.equal(target.label);
      const alone = await readAsset(file, mimeType as SignableMimeType, { trustAnchorsPem: chain.pem.root }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(alone, `${mimeType} has no embedded store`).to.be.instanceOf(RemoteManifestError);
      expect((alone as RemoteManifestError).url).to.equal(target.url);
      const report = await readDetachedManifest(manifestStore, outputPath, { trustAnchorsPem: chain.pem.root }, REMOTE_SOURCE);
      expect(report.validation_state, `${mimeType}: ${report.summary}`).to.equal('Trusted');
    }
  });

  it('a changed byte in a remote-manifest JPEG or PDF reads Invalid against its store', async () => {
    for (const mimeType of ['image/jpeg', 'application/pdf'] as const) {
      const sourcePath = path.join(dir, `tamper-source-${formatFor(mimeType)!.extension}`);
      writeFileSync(sourcePath, samples[mimeType]);
      const { signed } = signRemote(mimeType, sourcePath, `${sourcePath}.signed`);
      const { manifestStore } = await signed;
      const tampered = `${sourcePath}.tampered`;
      writeFileSync(tampered, flipByte(new Uint8Array(await readFile(`${sourcePath}.signed`)), mimeType === 'image/jpeg' ? 10 : 700));
      const report = await readDetachedManifest(manifestStore, tampered, { trustAnchorsPem: chain.pem.root }, REMOTE_SOURCE);
      expect(report.validation_state, `${mimeType}: ${report.summary}`).to.equal('Invalid');
      expect(report.status.failure.some((code) => /Hash\.mismatch$/.test(code)), JSON.stringify(report.status.failure)).to.equal(true);
    }
  });

  it('refuses the streamed formats and ZIP containers with the reason, writing nothing', async () => {
    const refused = Object.keys(samples).filter((mimeType) => remoteManifestRefusal(mimeType) !== undefined);
    expect(refused).to.have.members([
      'video/mp4',
      'video/x-m4v',
      'video/quicktime',
      'audio/mp4',
      'audio/mpeg',
      'audio/wav',
      'audio/flac',
      'application/epub+zip',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.presentation',
      'application/vnd.oasis.opendocument.graphics',
    ]);
    for (const mimeType of refused) {
      const sourcePath = path.join(dir, `refused-source-${formatFor(mimeType)!.extension}`);
      writeFileSync(sourcePath, samples[mimeType as SignableMimeType]);
      const failure = await signRemote(mimeType as SignableMimeType, sourcePath, `${sourcePath}.signed`).signed.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure, mimeType).to.be.instanceOf(RemoteManifestUnsupportedError);
      expect((failure as RemoteManifestUnsupportedError).code).to.equal('remote_manifest_unsupported');
      expect(existsSync(`${sourcePath}.signed`), mimeType).to.equal(false);
    }
    expect(remoteManifestRefusal('application/epub+zip')).to.match(/collection-hash/);
  });
});
