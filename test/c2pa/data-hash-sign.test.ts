/**
 * WAV, MP3 and FLAC signed streamed (shared/c2pa/data-hash-sign.ts): the c2pa.hash.data computed while the file is
 * written, c2pa-wasm signing only a stand-in. Judged by c2pa-rs reading the whole signed file (the WASM build) and by
 * ffmpeg decoding it: Trusted with assertion.dataHash.match, the manifest where c2pa-rs puts it (a RIFF C2PA chunk at
 * the end; an ID3v2.4 GEOB frame in front) with c2pa-rs's exclusion, a flipped audio byte Invalid with
 * assertion.dataHash.mismatch, the service's streamed reading agreeing, a file c2pa-rs signed re-signed with it as
 * parent ingredient, the asset rubrics clean; RF64 and WAVs past RIFF's 4 GiB refused by name.
 */
import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { readDataHashedFile } from '../../shared/c2pa/data-hash-read.js';
import { AudioUnsignableError } from '../../shared/c2pa/data-hash-spot.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import type { VerificationReport } from '../../shared/c2pa/verification-report.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { identifyMedia, MediaRejectedError } from '../../shared/media/formats.js';
import { loadRubric, unmet } from '../support/asset-rubric.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { openBindingDesk, type BindingDesk } from './binding-desk.js';

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

const FILES = {
  'tone.wav': ['audio/wav', ['-c:a', 'pcm_s16le']],
  'tone.mp3': ['audio/mpeg', ['-c:a', 'libmp3lame', '-b:a', '32k']],
  'tone.flac': ['audio/flac', ['-c:a', 'flac']],
  // ID3v2.3 (frames re-headed as v2.4), and no tag at all.
  'v23.mp3': ['audio/mpeg', ['-c:a', 'libmp3lame', '-b:a', '32k', '-id3v2_version', '3', '-metadata', 'title=Harbour']],
  'bare.mp3': ['audio/mpeg', ['-c:a', 'libmp3lame', '-b:a', '32k', '-id3v2_version', '0']],
} as const;
type Name = keyof typeof FILES;

interface CrJsonManifest {
  assertions: Record<string, { exclusions?: { start: number; length: number }[] }>;
}

describe('c2pa: WAV, MP3 and FLAC signed streamed with a data hash', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let desk: BindingDesk;
  let dir: string;
  const files = {} as Record<Name, Buffer>;
  let written = 0;

  const onDisk = (bytes: Buffer) => {
    written += 1;
    const file = path.join(dir, `source-${written}`);
    writeFileSync(file, bytes);
    return file;
  };
  async function sign(bytes: Buffer, mimeType: SignableMimeType, trustAnchorsPem?: string) {
    const sourcePath = onDisk(bytes);
    const outputPath = `${sourcePath}.signed`;
    const signed = await signFile({
      sourcePath,
      outputPath,
      mimeType,
      manifest: (has) => buildManifestDefinition({ title: 'Tone', creator: 'Ada Lovelace' }, { sourceHasManifest: has }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      trustAnchorsPem,
    });
    const file = readFileSync(outputPath);
    expect(signed.size).to.equal(file.length);
    return { file, signed };
  }
  const read = (file: Buffer, mimeType: SignableMimeType): Promise<VerificationReport> => readAsset(file, mimeType, { trustAnchorsPem: [chain.pem.root, desk.rootPem] });
  async function crJsonOf(file: Buffer, mimeType: SignableMimeType): Promise<{ manifests: CrJsonManifest[] }> {
    const reader = await c2paWasm().WasmReader.fromBytes(mimeType, new Uint8Array(file), trustSettings({ trustAnchorsPem: chain.pem.root }));
    try {
      return JSON.parse(reader.crJson()) as { manifests: CrJsonManifest[] };
    } finally {
      reader.free();
    }
  }
  /** Where the file's (one) manifest store starts: its first JUMBF box's size field. */
  const storeAt = (file: Buffer) => file.indexOf('jumb') - 4;
  /** A byte of the audio: the last frames (the manifest is in front), or a WAV's data chunk (the manifest is at the end). */
  const audioByte = (file: Buffer, mimeType: SignableMimeType) => (mimeType === 'audio/wav' ? file.indexOf('data') + 8 + 100 : file.length - 100);
  async function expectPlayable(file: Buffer): Promise<void> {
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', onDisk(file), '-f', 'null', '-']);
    expect(stderr).to.equal('');
  }

  before(async function () {
    dir = mkdtempSync(path.join(tmpdir(), 'data-hash-sign-'));
    [chain, desk] = await Promise.all([makeOpensslChain({ cn: 'Audio Desk' }), openBindingDesk({ cn: 'c2pa-rs Desk', creator: 'c2pa-rs', title: 'tone' })]);
    await Promise.all(
      Object.entries(FILES).map(async ([name, [, args]]) => {
        await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050', '-t', '1', ...args, path.join(dir, name)]);
        files[name as Name] = readFileSync(path.join(dir, name));
      }),
    );
  });
  after(() => {
    desk?.close();
    rmSync(dir, { recursive: true, force: true });
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  for (const name of Object.keys(FILES) as Name[]) {
    const mimeType = FILES[name][0];
    it(`signs ${name}: c2pa-rs reads it Trusted with its data hash matching, a flipped audio byte Invalid; the service's streamed reading agrees`, async function () {
      const { file, signed } = await sign(files[name], mimeType);
      const report = await read(file, mimeType);
      expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
      expect(report.status.success).to.include('assertion.dataHash.match');
      // c2pa-rs's exclusion: the C2PA chunk with its header (WAV), the store inside the GEOB frame (MP3, FLAC).
      const exclusions = (await crJsonOf(file, mimeType)).manifests[0]!.assertions['c2pa.hash.data']!.exclusions;
      const at = storeAt(file);
      expect(exclusions).to.deep.equal(mimeType === 'audio/wav' ? [{ start: at - 8, length: signed.manifestStore.byteLength + 8 }] : [{ start: at, length: signed.manifestStore.byteLength }]);
      expect(file.subarray(at, at + signed.manifestStore.byteLength).equals(Buffer.from(signed.manifestStore))).to.equal(true);
      await expectPlayable(file);
      const ours = await readDataHashedFile(onDisk(file), mimeType, { trustAnchorsPem: chain.pem.root });
      expect([ours.report.validation_state, ours.report.status.success.includes('assertion.dataHash.match')]).to.deep.equal(['Trusted', true]);

      const tampered = Buffer.from(file);
      tampered[audioByte(file, mimeType)] ^= 0x01;
      const bad = await read(tampered, mimeType);
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.include('assertion.dataHash.mismatch');
      const oursBad = await readDataHashedFile(onDisk(tampered), mimeType, { trustAnchorsPem: chain.pem.root });
      expect(oursBad.report.validation_state).to.equal('Invalid');
      expect(oursBad.report.status.failure).to.include('assertion.dataHash.mismatch');
    });
  }

  it('lays a WAV out as c2pa-rs does: the same chunks in the same place, the C2PA chunk last, only the RIFF size changed', async function () {
    const ours = (await sign(files['tone.wav'], 'audio/wav')).file;
    const theirs = await desk.embedded('audio/wav', files['tone.wav']);
    const before = (f: Buffer) => f.subarray(8, storeAt(f) - 8);
    expect(before(ours).equals(before(theirs))).to.equal(true);
    expect(ours.toString('latin1', storeAt(ours) - 8, storeAt(ours) - 4)).to.equal('C2PA');
    expect(ours.readUInt32LE(4)).to.equal(ours.length - 8);
  });

  it('lays a FLAC out as c2pa-rs does: an ID3v2.4 tag in front of "fLaC" with the GEOB frame c2pa-rs writes, the audio unchanged', async function () {
    const ours = (await sign(files['tone.flac'], 'audio/flac')).file;
    const theirs = await desk.embedded('audio/flac', files['tone.flac']);
    // The same header and frame but for the sizes (their stores differ in length), then the store, then the same audio.
    const sizesBlanked = (f: Buffer) => Buffer.concat([f.subarray(0, 6), f.subarray(10, 14), f.subarray(18, storeAt(f))]);
    expect(sizesBlanked(ours).equals(sizesBlanked(theirs))).to.equal(true);
    const rest = (f: Buffer) => f.subarray(f.indexOf('fLaC'));
    expect(rest(ours).equals(files['tone.flac'])).to.equal(true);
    expect(rest(theirs).equals(files['tone.flac'])).to.equal(true);
  });

  for (const [name, mimeType] of [['tone.wav', 'audio/wav'], ['tone.mp3', 'audio/mpeg'], ['tone.flac', 'audio/flac']] as const) {
    it(`re-signs a ${name} c2pa-rs signed: c2pa.opened, its manifest the parent ingredient with a matching data hash, one manifest left, the rubrics clean`, async function () {
      const parent = await desk.embedded(mimeType, files[name]);
      const before = await readAsset(parent, mimeType, { trustAnchorsPem: desk.rootPem });
      const { file } = await sign(parent, mimeType, desk.rootPem);
      const report = await read(file, mimeType);
      expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
      expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
      expect(report.manifest?.ingredients).to.deep.equal([{ title: `tone.${mimeType.split('/')[1]}`, relationship: 'parentOf', active_manifest: before.active_manifest, failure: [] }]);
      // The old manifest gave way to the new one: one C2PA chunk, one C2PA GEOB frame.
      expect(file.toString('latin1').split(mimeType === 'audio/wav' ? 'C2PA' : 'application/c2pa').length - 1).to.equal(1);
      await expectPlayable(file);

      const profile = (rubric: string) => loadRubric(new URL(`../fixtures/asset-rubrics/${rubric}`, import.meta.url).pathname);
      const crJson = await crJsonOf(file, mimeType);
      expect(unmet(profile('asset-rubric-conformance0.2-spec2.4.yml').evaluate(crJson))).to.deep.equal([]);
      expect(unmet(profile('asset-rubric-integrity.yml').evaluate(crJson))).to.deep.equal([]);
    });
  }

  it('keeps an ID3v2.3 tag\'s frames (re-headed as v2.4) beside the manifest', async function () {
    const { file } = await sign(files['v23.mp3'], 'audio/mpeg');
    expect([...file.subarray(0, 4)]).to.deep.equal([...Buffer.from('ID3\x04', 'latin1')]);
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format_tags=title', '-of', 'default=nw=1:nk=1', onDisk(file)]);
    expect(stdout.trim()).to.equal('Harbour');
  });

  it('refuses RF64 by name (415), and a WAV past what RIFF holds: over 4 GiB at upload, no room left for the manifest at signing', async function () {
    const rf64 = Buffer.from(files['tone.wav']);
    rf64.write('RF64', 0, 'latin1');
    const refused = await identifyMedia(onDisk(rf64)).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(MediaRejectedError);
    expect([(refused as MediaRejectedError).reason, (refused as Error).message]).to.satisfy(([reason, message]: [string, string]) => reason === 'unsupported' && /RF64/.test(message));

    // Sparse files: a RIFF header, "fmt " and a data chunk running to the end, no disk used.
    const sparseWav = (size: number) => {
      const file = path.join(dir, `sparse-${size}.wav`);
      const fmt = files['tone.wav'].subarray(12, 12 + 8 + 16);
      const head = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'), fmt, Buffer.from('data\0\0\0\0', 'latin1')]);
      head.writeUInt32LE(size - 8, 4);
      head.writeUInt32LE(size - head.length, head.length - 4);
      const fd = openSync(file, 'w');
      writeSync(fd, head, 0, head.length, 0);
      writeSync(fd, Buffer.alloc(1), 0, 1, size - 1);
      closeSync(fd);
      return file;
    };
    const tooLarge = await identifyMedia(sparseWav(2 ** 32 + 2), { checkStructure: false }).catch((e: unknown) => e);
    expect((tooLarge as MediaRejectedError).reason).to.equal('too_large');
    const full = sparseWav(2 ** 32 - 64);
    const outputPath = `${full}.signed`;
    const err = await signFile({ sourcePath: full, outputPath, mimeType: 'audio/wav', manifest: buildManifestDefinition({ title: 'Full', creator: 'Ada Lovelace' }, { sourceHasManifest: false }), key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(AudioUnsignableError);
    expect((err as Error).message).to.match(/a RIFF file can hold/);
    expect(existsSync(outputPath)).to.equal(false);
  });
});
