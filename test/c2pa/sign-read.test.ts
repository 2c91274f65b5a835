import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { writeZip } from '../support/zip-writer.js';
import { buildManifestDefinition, SERVICE_NAME, SERVICE_VERSION } from '../../shared/c2pa/manifest-definition.js';
import { MediaTypeMismatchError, UnsupportedMediaTypeError, type SignableMimeType } from '../../shared/c2pa/media-type.js';
import { hasManifest, readAsset } from '../../shared/c2pa/read-asset.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { SourceManifestConflictError } from '../../shared/c2pa/sign-options.js';
import { VaultUnavailableError, type VaultKey } from '../../shared/vault/types.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture, flipByte } from './helpers.js';

/** Signing and reading through real c2pa-rs (WASM), against a chain made by openssl. */
describe('c2pa: signAsset and readAsset', function () {
  let chain: OpensslChain;
  let otherChain: OpensslChain;
  let photo: Uint8Array;
  let graphic: Uint8Array;
  const signed = new Map<SignableMimeType, Uint8Array>();

  const sign = (bytes: Uint8Array, mimeType: SignableMimeType, sourceHasManifest = false, key?: VaultKey, signer = chain) =>
    signAsset({
      bytes,
      mimeType,
      manifest: buildManifestDefinition({ title: `test.${mimeType.slice(6)}`, creator: 'Ada Lovelace' }, { sourceHasManifest }),
      key: key ?? signer.keys.leaf,
      chainDer: [signer.der.leaf, signer.der.subCa],
      trustAnchorsPem: chain.pem.root,
    });
  const read = (bytes: Uint8Array, mimeType: SignableMimeType, anchors = chain.pem.root) =>
    readAsset(bytes, mimeType, { trustAnchorsPem: anchors });

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
    if (otherChain) rmSync(otherChain.dir, { recursive: true, force: true });
  });

  before(async function () {
    [chain, otherChain, photo, graphic] = await Promise.all([
      makeOpensslChain(),
      makeOpensslChain({ cn: 'Other' }),
      fixture('photo.jpg'),
      fixture('graphic.png'),
    ]);
    signed.set('image/jpeg', await sign(photo, 'image/jpeg'));
    signed.set('image/png', await sign(graphic, 'image/png'));
  });

  for (const mimeType of ['image/jpeg', 'image/png'] as const) {
    describe(mimeType, function () {
      it('reads Trusted with only the openssl root as anchor, with the manifest summary and signer', async function () {
        const report = await read(signed.get(mimeType)!, mimeType);
        expect(report.validation_state).to.equal('Trusted');
        expect(report.status.failure).to.deep.equal([]);
        expect(report.status.success).to.include.members(['signingCredential.trusted', 'claimSignature.validated', 'assertion.dataHash.match']);
        expect(report.active_manifest).to.match(/^urn:c2pa:/);
        expect(report.manifest).to.deep.include({
          title: `test.${mimeType.slice(6)}`,
          creator: 'Ada Lovelace',
          claim_generator: `${SERVICE_NAME}/${SERVICE_VERSION}`,
          signed_at: null, // no timestamp
          actions: ['c2pa.created'],
          ingredients: [],
        });
        const leaf = new X509Certificate(chain.der.leaf);
        expect(report.signer).to.deep.equal({
          subject: 'C=US, O=Test Org, CN=Test leaf',
          serial: leaf.serialNumber.toLowerCase(),
          issuer: 'C=US, O=Test Org, CN=Test subca',
        });
      });

      it('reads Invalid with a data-hash failure when one byte of image data changes', async function () {
        const tampered = flipByte(signed.get(mimeType)!, mimeType === 'image/png' ? 200 : 100);
        const report = await read(tampered, mimeType);
        expect(report.validation_state).to.equal('Invalid');
        expect(report.status.failure).to.include('assertion.dataHash.mismatch');
      });

      it("reads 'none' for the unsigned file", async function () {
        const report = await read(mimeType === 'image/png' ? graphic : photo, mimeType);
        expect(report).to.deep.equal({
          validation_state: 'none',
          active_manifest: null,
          manifest: null,
          signer: null,
          status: { success: [], informational: [], failure: [] },
          timestamp: null,
          ocsp: null,
          identities: [],
          failures: [],
          summary: 'No C2PA manifest in the file.',
          manifest_source: null,
        });
      });

      it('is not Trusted when a different root is the only anchor', async function () {
        const report = await read(signed.get(mimeType)!, mimeType, otherChain.pem.root);
        expect(report.validation_state).to.equal('Valid');
        expect(report.status.failure).to.include('signingCredential.untrusted');
      });
    });
  }

  describe('a source that already carries a manifest', function () {
    it('is signed with c2pa.opened and the source as parent ingredient, keeping its manifest', async function () {
      const first = signed.get('image/jpeg')!;
      expect(await hasManifest(first, 'image/jpeg')).to.equal(true);
      const before = await read(first, 'image/jpeg');
      const second = await sign(first, 'image/jpeg', true);
      const report = await read(second, 'image/jpeg');
      expect(report.validation_state).to.equal('Trusted');
      expect(report.active_manifest).to.not.equal(before.active_manifest);
      expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
      expect(report.manifest?.ingredients).to.deep.equal([
        { title: 'test.jpeg', relationship: 'parentOf', active_manifest: before.active_manifest, failure: [] },
      ]);
    });

    it('records what is wrong with the parent: the new manifest can be Trusted while its parent is not', async function () {
      const foreign = await sign(photo, 'image/jpeg', false, undefined, otherChain);
      const tampered = flipByte(signed.get('image/jpeg')!);
      const fromForeign = await read(await sign(foreign, 'image/jpeg', true), 'image/jpeg');
      const fromTampered = await read(await sign(tampered, 'image/jpeg', true), 'image/jpeg');
      expect(fromForeign.validation_state).to.equal('Trusted');
      expect(fromForeign.manifest?.ingredients[0]?.failure).to.deep.equal(['signingCredential.untrusted']);
      expect(fromTampered.validation_state).to.equal('Trusted');
      expect(fromTampered.manifest?.ingredients[0]?.failure).to.deep.equal(['assertion.dataHash.mismatch']);
    });

    it("a defect only in the parent's manifest makes the file Invalid, and the summary says so and where", async function () {
      const parent = await signAsset({
        bytes: photo,
        mimeType: 'image/jpeg',
        manifest: buildManifestDefinition({ title: 'parent.jpg', creator: 'Parent Creator Unique' }, { sourceHasManifest: false }),
        key: chain.keys.leaf,
        chainDer: [chain.der.leaf, chain.der.subCa],
      });
      const child = Buffer.from(await sign(parent, 'image/jpeg', true));
      // One letter of the parent's creator, inside the parent's metadata assertion in the child's store: the child's
      // own claim, signature and data hash (which excludes the store) stay intact.
      const at = child.indexOf('Parent Creator Unique');
      expect(at).to.be.greaterThan(0);
      expect(child.indexOf('Parent Creator Unique', at + 1)).to.equal(-1);
      child[at] = 'Q'.charCodeAt(0);
      const report = await read(new Uint8Array(child), 'image/jpeg');
      expect(report.validation_state).to.equal('Invalid');
      // c2pa-rs's codes for the active manifest show nothing wrong: the cause sits in the ingredient.
      expect(report.status.failure).to.deep.equal([]);
      expect(report.failures.map((f) => [f.code, f.in, f.ingredient])).to.deep.include(['assertion.hashedURI.mismatch', 'ingredient', 'parent.jpg']);
      expect(report.failures.every((f) => f.in === 'ingredient')).to.equal(true);
      expect(report.summary).to.match(/^Invalid: /);
      expect(report.summary).to.include('assertion.hashedURI.mismatch in ingredient "parent.jpg"');
    });

    it('refuses a c2pa.created definition, which would silently drop the existing manifest', async function () {
      const err = await sign(signed.get('image/png')!, 'image/png', false).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(SourceManifestConflictError);
    });

    it('hasManifest is false for unsigned files', async function () {
      expect(await hasManifest(photo, 'image/jpeg')).to.equal(false);
      expect(await hasManifest(graphic, 'image/png')).to.equal(false);
    });
  });

  describe('media types', function () {
    it('rejects bytes that are not the declared type (a PNG read as JPEG would look unsigned)', async function () {
      const err = await read(signed.get('image/png')!, 'image/jpeg').catch((e: unknown) => e);
      expect(err).to.be.instanceOf(MediaTypeMismatchError);
      expect((err as Error).message).to.contain('image/png');
    });

    it('rejects types outside the registry (shared/media/formats.ts), e.g. BMP and plain ZIP', async function () {
      for (const [bytes, type] of [[Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]), 'image/bmp'], [writeZip([{ name: 'a.txt', data: 'a' }]), 'application/zip']] as const) {
        const err = await readAsset(bytes, type as unknown as SignableMimeType, { trustAnchorsPem: chain.pem.root }).catch((e: unknown) => e);
        expect(err, type).to.be.instanceOf(UnsupportedMediaTypeError);
        const signErr = await sign(bytes, type as unknown as SignableMimeType).catch((e: unknown) => e);
        expect(signErr, type).to.be.instanceOf(UnsupportedMediaTypeError);
      }
    });

    it('accepts GIF and WebP now that the registry lists them; a GIF declared as WebP is a mismatch', async function () {
      const gif = await fixture('tiny.gif');
      expect(await hasManifest(gif, 'image/gif')).to.equal(false);
      const err = await readAsset(gif, 'image/webp', { trustAnchorsPem: chain.pem.root }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(MediaTypeMismatchError);
    });

    it('throws a clear error for a corrupt file instead of reporting none', async function () {
      const corrupt = signed.get('image/jpeg')!.slice(0, 400); // cut inside the manifest
      const err = await read(corrupt, 'image/jpeg').catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect((err as Error).message).to.match(/c2pa-rs could not read the image\/jpeg file: C2pa\(/);
    });
  });

  describe('the vault signer', function () {
    it('may be slow and asynchronous; concurrent signings in one process all validate', async function () {
      const slowKey: VaultKey = {
        ...chain.keys.leaf,
        signEs384: async (data) => {
          await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
          return chain.keys.leaf.signEs384(data);
        },
      };
      const outputs = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? sign(graphic, 'image/png', false, slowKey) : sign(photo, 'image/jpeg', false, slowKey))),
      );
      const reports = await Promise.all(outputs.map((o, i) => read(o, i % 2 ? 'image/png' : 'image/jpeg')));
      expect(reports.map((r) => r.validation_state)).to.deep.equal(Array(6).fill('Trusted'));
    });

    it('passes a vault failure through unchanged, so callers can retry', async function () {
      const outage = new VaultUnavailableError('vault answered 503');
      const downKey: VaultKey = { ...chain.keys.leaf, signEs384: async () => Promise.reject(outage) };
      const err = await sign(photo, 'image/jpeg', false, downKey).catch((e: unknown) => e);
      expect(err).to.equal(outage);
    });

    it('refuses a chain whose leaf does not certify the key', async function () {
      const err = await sign(photo, 'image/jpeg', false, chain.keys.subCa).catch((e: unknown) => e);
      expect((err as Error).message).to.contain('leaf certificate does not match');
    });
  });
});
