/**
 * What c2pa-wasm is shown of a BMFF file signed streamed (shared/c2pa/bmff-stand-in.ts, standInOf in
 * bmff-c2pa-boxes.ts): the ftyp, XMP and C2PA boxes in file order; a placeholder signature that gives the store its
 * final size (with a timestamp, a thumbnail and a parent ingredient); the parent ingredient's BMFF hash verdict taken
 * from the whole file, a match when it matches and c2pa-rs's mismatch when it does not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { standInOf, withBmffFile } from '../../shared/c2pa/bmff-c2pa-boxes.js';
import { parentIngredientOf, placeholderSigner, signStandIn } from '../../shared/c2pa/bmff-stand-in.js';
import { coseSigner } from '../../shared/c2pa/cose-sign1.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { signingSettings } from '../../shared/c2pa/settings.js';
import { makeClaimThumbnail } from '../../shared/c2pa/thumbnail.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';
import { boxesOf, makeClip, withFlippedMediaByte } from './bmff-files.js';
import { fixture, opensslTimestamper } from './helpers.js';

type Codes = { success?: { code: string }[]; failure?: { code: string }[] };

describe('c2pa: the stand-in c2pa-wasm signs for a BMFF file', function () {
  this.timeout(60_000);
  let dir: string;
  let desk: BindingDesk;
  let parent: Buffer;
  let n = 0;
  const onDisk = (bytes: Buffer) => {
    const file = path.join(dir, `f${(n += 1)}`);
    writeFileSync(file, bytes);
    return file;
  };
  const xmpBox = () => {
    const xmp = Buffer.from('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>');
    const head = Buffer.alloc(24);
    head.writeUInt32BE(24 + xmp.length);
    head.write('uuid', 4, 'latin1');
    Buffer.from('be7acfcb97a942e89c71999491e3afac', 'hex').copy(head, 8);
    return Buffer.concat([head, xmp]);
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-stand-in-'));
    desk = await openBindingDesk({ cn: 'Stand-in Desk', creator: 'c2pa-rs', title: 'clip' });
    parent = await desk.embedded('video/mp4', Buffer.concat([await makeClip(dir, 'clip.mp4'), xmpBox()]));
  });
  after(() => {
    desk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows c2pa-rs the ftyp, C2PA and XMP boxes, in file order, and no media', async () => {
    const file = onDisk(parent);
    const [withManifest, without] = await withBmffFile(file, async (reader, top) => [await standInOf(reader, top, { manifest: true }), await standInOf(reader, top, { manifest: false })]);
    const types = (b: Uint8Array) => boxesOf(Buffer.from(b)).map((x) => x.type);
    expect(types(withManifest)).to.deep.equal(['ftyp', 'uuid', 'uuid']);
    const boxes = boxesOf(parent);
    expect(Buffer.from(withManifest).equals(Buffer.concat([0, 1, boxes.length - 1].map((i) => parent.subarray(boxes[i]!.offset, boxes[i]!.offset + boxes[i]!.size))))).to.equal(true);
    expect(types(without)).to.deep.equal(['ftyp', 'uuid']);
    expect(Buffer.from(without).subarray(-xmpBox().length).equals(xmpBox())).to.equal(true);
  });

  it('records the parent\'s BMFF hash as the whole file judges it: a match, or c2pa-rs\'s mismatch for a changed file', async () => {
    const verdict = async (bytes: Buffer) => {
      const file = onDisk(bytes);
      const ingredient = await withBmffFile(file, async (reader, top) =>
        parentIngredientOf(reader, top, await standInOf(reader, top, { manifest: true }), 'video/mp4', signingSettings({ verifyAfterSign: false }), file, 'Parent'),
      );
      const codes = ingredient.definition.validation_results!.activeManifest as Codes;
      return { success: (codes.success ?? []).map((c) => c.code), failure: (codes.failure ?? []).map((c) => c.code), title: ingredient.definition.title };
    };
    const intact = await verdict(parent);
    expect(intact.success).to.include('assertion.bmffHash.match');
    expect(intact.failure).to.deep.equal(['signingCredential.untrusted']);
    expect(intact.title).to.equal('Parent');
    const changed = await verdict(withFlippedMediaByte(parent));
    expect(changed.success).to.not.include('assertion.bmffHash.match');
    expect(changed.failure).to.include('assertion.bmffHash.mismatch');
  });

  it('sizes the store with a placeholder signature: signed for real (timestamp, thumbnail, parent) it is the same size', async () => {
    const file = onDisk(parent);
    const [store, placeholder] = await withBmffFile(file, async (reader, top) => {
      const settings = signingSettings({ verifyAfterSign: false });
      const parentIngredient = await parentIngredientOf(reader, top, await standInOf(reader, top, { manifest: true }), 'video/mp4', settings, file, 'Parent');
      const definition = buildManifestDefinition({ title: 'Again', creator: 'Ada Lovelace', thumbnail: true }, { sourceHasManifest: true });
      const signer = coseSigner({ key: desk.chain.keys.leaf, chainDer: [desk.chain.der.leaf, desk.chain.der.subCa], timestamper: await opensslTimestamper(desk.chain) });
      const setup = { definition, mimeType: 'video/mp4' as const, thumbnail: await makeClaimThumbnail(await fixture('photo.jpg'), 'image/jpeg'), settings, signer, standIn: await standInOf(reader, top, { manifest: false }), parent: parentIngredient };
      return [await signStandIn(setup, Buffer.alloc(32, 7)), await signStandIn({ ...setup, signer: placeholderSigner(signer) })];
    });
    expect(store.byteLength).to.equal(placeholder.byteLength);
    expect(Buffer.from(store).equals(Buffer.from(placeholder))).to.equal(false);
  });
});
