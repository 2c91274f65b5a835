/**
 * signFile: signing a file on disk and writing the signed file to disk, for video and audio of any size the service
 * accepts: MP4 (shared/c2pa/bmff-sign.ts) and WAV (shared/c2pa/data-hash-sign.ts) streamed, AVI through a FileBlob
 * (c2pa-rs reads the ranges it needs from the file). Real c2pa-rs (WASM), real ffmpeg files, a chain made by openssl.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { MediaTypeMismatchError, UnsupportedMediaTypeError, type SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { fileHasManifest, MAX_WASM_SIGN_BYTES, signAsset, signFile, SourceTooLargeError } from '../../shared/c2pa/sign-asset.js';
import { SourceManifestConflictError } from '../../shared/c2pa/sign-options.js';
import { VaultUnavailableError, type VaultKey } from '../../shared/vault/types.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

/** Offset of the payload of the first top-level ISO BMFF box of `type` (e.g. mdat). */
function bmffBoxPayload(file: Buffer, type: string): number {
  for (let at = 0; at + 8 <= file.length; ) {
    let size = file.readUInt32BE(at);
    let header = 8;
    if (size === 1) [size, header] = [Number(file.readBigUInt64BE(at + 8)), 16];
    if (file.toString('latin1', at + 4, at + 8) === type) return at + header;
    if (size < 8) break;
    at += size;
  }
  throw new Error(`no ${type} box`);
}

/** Offset of the payload of the RIFF chunk `id` (e.g. "data"). */
function riffChunkPayload(file: Buffer, id: string): number {
  for (let at = 12; at + 8 <= file.length; ) {
    const size = file.readUInt32LE(at + 4);
    if (file.toString('latin1', at, at + 4) === id) return at + 8;
    at += 8 + size + (size % 2);
  }
  throw new Error(`no ${id} chunk`);
}

describe('c2pa: signFile (a file on disk)', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let dir: string;
  const files: Record<string, string> = {};

  const sign = (sourcePath: string, mimeType: SignableMimeType, outputPath: string, opts: { sourceHasManifest?: boolean; key?: VaultKey } = {}) =>
    signFile({
      sourcePath,
      outputPath,
      mimeType,
      manifest: buildManifestDefinition({ title: path.basename(sourcePath), creator: 'Ada Lovelace' }, { sourceHasManifest: opts.sourceHasManifest ?? false }),
      key: opts.key ?? chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      trustAnchorsPem: chain.pem.root,
    });
  const read = async (file: string, mimeType: SignableMimeType) => readAsset(await readFile(file), mimeType, { trustAnchorsPem: chain.pem.root });

  before(async function () {
    dir = mkdtempSync(path.join(tmpdir(), 'sign-file-'));
    files.mp4 = path.join(dir, 'clip.mp4');
    files.wav = path.join(dir, 'tone.wav');
    files.bigMp4 = path.join(dir, 'big.mp4');
    [chain] = await Promise.all([
      makeOpensslChain(),
      ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '2', '-c:v', 'mpeg4', '-q:v', '2', '-c:a', 'aac', '-shortest', files.mp4]),
      ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=sample_rate=48000:amplitude=0.3', '-t', '2', '-ac', '2', '-c:a', 'pcm_s24le', files.wav]),
      // Over c2pa-wasm's 50 MB threshold, so c2pa-rs reads it slice by slice (FileBlob reads and read-ahead) rather
      // than whole: a 4 s high-bitrate clip, repeated without re-encoding.
      (async () => {
        const clip = path.join(dir, 'hq.mp4');
        await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-t', '4', '-c:v', 'mpeg4', '-q:v', '1', clip]);
        await ffmpeg(['-stream_loop', '7', '-i', clip, '-c', 'copy', files.bigMp4]);
      })(),
    ]);
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  for (const [name, mimeType, payloadOf, hashCode] of [
    ['mp4', 'video/mp4', (f: Buffer) => bmffBoxPayload(f, 'mdat'), 'assertion.bmffHash'],
    ['wav', 'audio/wav', (f: Buffer) => riffChunkPayload(f, 'data'), 'assertion.dataHash'],
  ] as const) {
    it(`signs ${name.toUpperCase()} (${mimeType}) to a file that c2pa-rs reads Trusted; a flipped byte of its media data reads Invalid`, async function () {
      const out = path.join(dir, `signed-${name}`);
      expect(await fileHasManifest(files[name]!, mimeType)).to.equal(false);
      const signed = await sign(files[name]!, mimeType, out);
      const bytes = await readFile(out);
      expect(signed.size).to.equal(bytes.length);
      const { createHash } = await import('node:crypto');
      expect(signed.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
      expect(signed.manifestStore.length).to.be.greaterThan(1000);

      const report = await read(out, mimeType);
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.status.success).to.include(`${hashCode}.match`);
      expect(report.manifest).to.deep.include({ title: path.basename(files[name]!), creator: 'Ada Lovelace', actions: ['c2pa.created'] });
      expect(await fileHasManifest(out, mimeType)).to.equal(true);

      const tampered = Buffer.from(bytes);
      const at = payloadOf(tampered) + 1000; // inside the audio/video data, not the manifest
      tampered[at] = tampered[at]! ^ 0x01;
      const bad = await readAsset(tampered, mimeType, { trustAnchorsPem: chain.pem.root });
      expect(bad.validation_state).to.equal('Invalid');
      expect(bad.status.failure).to.include(`${hashCode}.mismatch`);
    });
  }

  it('signs a video over 50 MB from disk to the same result signAsset gives from memory', async function () {
    const out = path.join(dir, 'signed-big.mp4');
    const source = await readFile(files.bigMp4!);
    expect(source.length).to.be.greaterThan(50 * 1024 * 1024);
    const signed = await sign(files.bigMp4!, 'video/mp4', out);
    expect((await read(out, 'video/mp4')).validation_state).to.equal('Trusted');
    // The same manifest signed from memory: the same file around a manifest of the same size.
    const inMemory = await signAsset({
      bytes: source,
      mimeType: 'video/mp4',
      manifest: buildManifestDefinition({ title: 'big.mp4', creator: 'Ada Lovelace' }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
    });
    expect(signed.size).to.equal(inMemory.length);
    const fromFile = await readFile(out);
    const mdat = bmffBoxPayload(fromFile, 'mdat');
    expect(fromFile.subarray(mdat, mdat + 1_000_000).equals(Buffer.from(inMemory).subarray(mdat, mdat + 1_000_000))).to.equal(true);
  });

  it('signs a signed file again only as opened (parent ingredient), Trusted', async function () {
    const first = path.join(dir, 'signed-wav'); // from the WAV test above
    if (!existsSync(first)) this.skip();
    const err = await sign(first, 'audio/wav', path.join(dir, 'conflict.wav')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SourceManifestConflictError);
    expect(existsSync(path.join(dir, 'conflict.wav'))).to.equal(false);
    const again = path.join(dir, 'again.wav');
    await sign(first, 'audio/wav', again, { sourceHasManifest: true });
    const report = await read(again, 'audio/wav');
    expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
    expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
    expect(report.manifest?.ingredients.map((i) => i.relationship)).to.deep.equal(['parentOf']);
  });

  it('refuses a file whose content is not the declared type, or a type it cannot sign, writing nothing', async function () {
    const out = path.join(dir, 'refused');
    expect(await sign(files.mp4!, 'audio/wav', out).catch((e: unknown) => e)).to.be.instanceOf(MediaTypeMismatchError);
    expect(await sign(files.mp4!, 'text/plain' as SignableMimeType, out).catch((e: unknown) => e)).to.be.instanceOf(UnsupportedMediaTypeError);
    expect(existsSync(out)).to.equal(false);
  });

  it('keeps the vault failure as it is (retryable), writing nothing', async function () {
    const out = path.join(dir, 'vault-down');
    const down: VaultKey = { name: 'leaf', publicKeySpki: chain.keys.leaf.publicKeySpki, signEs384: async () => { throw new VaultUnavailableError('vault down'); } };
    expect(await sign(files.wav!, 'audio/wav', out, { key: down }).catch((e: unknown) => e)).to.be.instanceOf(VaultUnavailableError);
    expect(existsSync(out)).to.equal(false);
  });

  it(`refuses a source it hands to c2pa-wasm (AVI) over ${MAX_WASM_SIGN_BYTES / 2 ** 20} MiB before c2pa-wasm runs out of memory on it`, async function () {
    const avi = path.join(dir, 'clip.avi');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10', '-t', '1', '-c:v', 'mjpeg', avi]);
    const huge = path.join(dir, 'huge.avi');
    writeFileSync(huge, await readFile(avi));
    truncateSync(huge, MAX_WASM_SIGN_BYTES + 1); // sparse: no disk used
    const err = await sign(huge, 'video/x-msvideo', path.join(dir, 'huge-signed.avi')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SourceTooLargeError);
    expect((err as Error).message).to.match(/c2pa-wasm can sign at most 600 MiB/);
  });
});
