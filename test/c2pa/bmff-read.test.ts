/**
 * Reading an MP4, MOV or M4A of any size in bounded memory (shared/c2pa/bmff-read.ts): the manifest store read out of
 * the file, claim and signature validated by c2pa-rs, the BMFF hash checked by streaming. It must say what c2pa-rs says
 * reading the whole file: Trusted for an intact file (c2pa-rs's own signing and the streamed path's), Invalid with
 * assertion.bmffHash.mismatch for one flipped media byte, none without a manifest; crJSON with the same binding verdict;
 * a file whose boxes cannot be walked is a C2PA error, as c2pa-rs's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { crJsonOfBmffFile, readBmffFile } from '../../shared/c2pa/bmff-read.js';
import { C2paError } from '../../shared/c2pa/errors.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import type { VerificationReport } from '../../shared/c2pa/verification-report.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';
import { boxesOf, makeClip, withFlippedMediaByte } from './bmff-files.js';

describe('c2pa: reading a BMFF file streamed', function () {
  this.timeout(60_000);
  let dir: string;
  let desk: BindingDesk;
  const files: Record<string, { bytes: Buffer; mimeType: SignableMimeType }> = {};
  let n = 0;
  const onDisk = (bytes: Buffer) => {
    const file = path.join(dir, `f${(n += 1)}`);
    writeFileSync(file, bytes);
    return file;
  };
  const options = () => ({ trustAnchorsPem: desk.rootPem });
  const codes = (r: VerificationReport) => ({ state: r.validation_state, success: [...new Set(r.status.success)].sort(), failure: [...new Set(r.status.failure)].sort() });

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bmff-read-'));
    desk = await openBindingDesk({ cn: 'Read Desk', creator: 'c2pa-rs', title: 'clip' });
    const [mp4, mov, m4a] = await Promise.all([makeClip(dir, 'clip.mp4'), makeClip(dir, 'clip.mov'), makeClip(dir, 'clip.m4a')]);
    files['signed by c2pa-rs (MP4)'] = { bytes: await desk.embedded('video/mp4', mp4), mimeType: 'video/mp4' };
    files['signed by c2pa-rs (M4A)'] = { bytes: await desk.embedded('audio/mp4', m4a), mimeType: 'audio/mp4' };
    const streamed = await signAsset({ bytes: mov, mimeType: 'video/quicktime', manifest: buildManifestDefinition({ title: 'clip.mov', creator: 'Ada' }, { sourceHasManifest: false }), key: desk.chain.keys.leaf, chainDer: [desk.chain.der.leaf, desk.chain.der.subCa] });
    files['signed streamed (MOV)'] = { bytes: Buffer.from(streamed), mimeType: 'video/quicktime' };
    files['unsigned (MP4)'] = { bytes: mp4, mimeType: 'video/mp4' };
  });
  after(() => {
    desk?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['signed by c2pa-rs (MP4)', 'signed by c2pa-rs (M4A)', 'signed streamed (MOV)', 'unsigned (MP4)']) {
    it(`${name}: the verdict c2pa-rs gives the whole file, intact and with a flipped media byte`, async () => {
      const { bytes, mimeType } = files[name]!;
      const variants = name.startsWith('unsigned') ? [bytes] : [bytes, withFlippedMediaByte(bytes)];
      for (const [i, variant] of variants.entries()) {
        const ours = await readBmffFile(onDisk(variant), mimeType, options());
        const theirs = await readAsset(variant, mimeType, options());
        expect(codes(ours.report)).to.deep.equal(codes(theirs));
        expect(ours.report.active_manifest).to.equal(theirs.active_manifest);
        expect(ours.report.manifest).to.deep.equal(theirs.manifest);
        if (name.startsWith('unsigned')) expect(ours.report.validation_state).to.equal('none');
        else if (i === 0) expect(ours.report.validation_state).to.equal('Trusted');
        else expect([ours.report.validation_state, ours.report.status.failure]).to.deep.equal(['Invalid', ['assertion.bmffHash.mismatch']]);
        expect(ours.store === undefined).to.equal(name.startsWith('unsigned'));
      }
    });
  }

  it('crJSON of the store with the verdict on the file: bmffHash.match intact, mismatch with a flipped byte, none unsigned', async () => {
    const { bytes, mimeType } = files['signed by c2pa-rs (MP4)']!;
    const resultsOf = async (variant: Buffer) => {
      const crJson = await crJsonOfBmffFile(onDisk(variant), mimeType, options());
      const results = (JSON.parse(crJson as string) as { manifests: { validationResults: { success: { code: string }[]; failure: { code: string }[] } }[] }).manifests[0]!.validationResults;
      return { success: results.success.map((c) => c.code), failure: results.failure.map((c) => c.code) };
    };
    const intact = await resultsOf(bytes);
    expect(intact.success).to.include('assertion.bmffHash.match');
    expect(intact.failure).to.deep.equal([]);
    const flipped = await resultsOf(withFlippedMediaByte(bytes));
    expect(flipped.failure).to.deep.equal(['assertion.bmffHash.mismatch']);
    expect(flipped.success).to.not.include('assertion.bmffHash.match');
    expect(await crJsonOfBmffFile(onDisk(files['unsigned (MP4)']!.bytes), 'video/mp4', options())).to.equal(undefined);
  });

  it('a file whose boxes cannot be walked is a C2PA error, as c2pa-rs reading it whole', async () => {
    const cut = Buffer.from(files['signed by c2pa-rs (MP4)']!.bytes);
    const last = boxesOf(cut).at(-1)!;
    cut.writeUInt32BE(last.size + 100, last.offset);
    expect(await readBmffFile(onDisk(cut), 'video/mp4', options()).catch((e: unknown) => e)).to.be.instanceOf(C2paError);
    expect(await readAsset(cut, 'video/mp4', options()).catch((e: unknown) => e)).to.be.instanceOf(C2paError);
  });
});
