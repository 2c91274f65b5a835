/**
 * Claim thumbnails of video: a frame taken by Debian's ffmpeg, embedded by signFile as c2pa.thumbnail.claim and read
 * back from the manifest store. Real ffmpeg files, real c2pa-rs, a chain made by openssl.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sharp from 'sharp';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { claimThumbnailOfStore, readAsset } from '../../shared/c2pa/read-asset.js';
import { signFile } from '../../shared/c2pa/sign-asset.js';
import { ThumbnailError } from '../../shared/c2pa/thumbnail.js';
import { frameSeekSeconds, parsePpm, VideoFrameError, videoFrame } from '../../shared/media/video-frame.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const run = promisify(execFile);
const ffmpeg = (args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
const h264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** The mean colour of a region of a decoded picture (fractions of its width and height). */
async function meanColour(jpeg: Uint8Array, box: { left: number; top: number; width: number; height: number }): Promise<number[]> {
  const { width = 0, height = 0 } = await sharp(jpeg).metadata();
  const region = { left: Math.round(box.left * width), top: Math.round(box.top * height), width: Math.round(box.width * width), height: Math.round(box.height * height) };
  const { channels } = await sharp(await sharp(jpeg).extract(region).toBuffer()).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

function near(actual: number[], expected: number[], tolerance = 40): void {
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `${actual} vs ${expected}`).to.be.at.most(tolerance));
}
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];

describe('c2pa: claim thumbnails of video (a frame taken by ffmpeg)', function () {
  this.timeout(120_000);
  let chain: OpensslChain;
  let dir: string;
  let redBlue: string;

  before(async () => {
    chain = await makeOpensslChain();
    dir = mkdtempSync(path.join(tmpdir(), 'video-thumbnail-'));
    // A 640x360 picture: red on the left, blue on the right.
    redBlue = path.join(dir, 'red-blue.png');
    await sharp({ create: { width: 640, height: 360, channels: 3, background: '#ff0000' } })
      .composite([{ input: { create: { width: 320, height: 360, channels: 3, background: '#0000ff' } }, left: 320, top: 0 }])
      .png()
      .toFile(redBlue);
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  const sign = async (source: string, mimeType: SignableMimeType, opts: { ffmpegPath?: string; thumbnail?: boolean } = {}) => {
    const errors: unknown[] = [];
    const out = `${source}.signed`;
    const signed = await signFile({
      sourcePath: source,
      outputPath: out,
      mimeType,
      manifest: buildManifestDefinition({ title: path.basename(source), creator: 'Desk', thumbnail: opts.thumbnail ?? true }, { sourceHasManifest: false }),
      key: chain.keys.leaf,
      chainDer: [chain.der.leaf, chain.der.subCa],
      ffmpegPath: 'ffmpegPath' in opts ? opts.ffmpegPath : 'ffmpeg',
      onThumbnailError: (err) => errors.push(err),
    });
    const report = await readAsset(await readFile(out), mimeType, { trustAnchorsPem: chain.pem.root });
    expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
    const thumbnail = await claimThumbnailOfStore(signed.manifestStore);
    return { report, thumbnail, errors };
  };

  it('embeds a JPEG of the picture, at most 512 px on its long side, that c2pa-rs reports and the store gives back', async () => {
    const video = path.join(dir, 'still.mp4');
    await ffmpeg(['-loop', '1', '-i', redBlue, '-t', '2', '-r', '25', ...h264, video]);
    const { report, thumbnail, errors } = await sign(video, 'video/mp4');
    expect(errors).to.deep.equal([]);
    expect(report.manifest?.thumbnail).to.deep.equal({ format: 'image/jpeg' });
    expect(thumbnail?.format).to.equal('image/jpeg');
    const meta = await sharp(thumbnail!.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).to.deep.equal(['jpeg', 512, 288]);
    near(await meanColour(thumbnail!.bytes, { left: 0.05, top: 0.1, width: 0.35, height: 0.8 }), RED);
    near(await meanColour(thumbnail!.bytes, { left: 0.6, top: 0.1, width: 0.35, height: 0.8 }), BLUE);
  });

  it('shows the frame as a player does: rotation applied, non-square pixels made square', async () => {
    // A display matrix turning the picture 90 degrees counter-clockwise (ffprobe: rotation=90), as a phone held
    // upright writes one: the red left side ends up at the bottom. (ffmpeg 5.1 keeps the tag only when copying.)
    const upright = path.join(dir, 'upright.mov');
    const rotated = path.join(dir, 'rotated.mov');
    await ffmpeg(['-loop', '1', '-i', redBlue, '-t', '1', ...h264, upright]);
    await ffmpeg(['-i', upright, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', rotated]);
    const probe = await run('ffprobe', ['-v', 'error', '-show_streams', rotated]);
    expect(probe.stdout).to.match(/rotation=90/);
    const turned = (await sign(rotated, 'video/quicktime')).thumbnail!.bytes;
    const meta = await sharp(turned).metadata();
    expect([meta.width, meta.height]).to.deep.equal([288, 512]);
    near(await meanColour(turned, { left: 0.1, top: 0.05, width: 0.8, height: 0.35 }), BLUE);
    near(await meanColour(turned, { left: 0.1, top: 0.6, width: 0.8, height: 0.35 }), RED);
    // Anamorphic: stored 320x360 with pixels twice as wide as high, shown 640x360.
    const squeezed = path.join(dir, 'anamorphic.mp4');
    await ffmpeg(['-loop', '1', '-i', redBlue, '-t', '1', '-vf', 'scale=320:360,setsar=2', ...h264, squeezed]);
    const wide = await sharp((await sign(squeezed, 'video/mp4')).thumbnail!.bytes).metadata();
    expect([wide.width, wide.height]).to.deep.equal([512, 288]);
  });

  it('takes its frame past an opening black: a tenth of the way in, at most 10 s', async () => {
    expect([frameSeekSeconds(undefined), frameSeekSeconds(4), frameSeekSeconds(3600)]).to.deep.equal([0, 0.4, 10]);
    // One second of black, then the picture for nine: the frame is the picture.
    const video = path.join(dir, 'black-open.mp4');
    await ffmpeg([
      '-f', 'lavfi', '-i', 'color=black:size=640x360:rate=25:duration=1',
      '-loop', '1', '-framerate', '25', '-t', '9', '-i', redBlue,
      '-filter_complex', '[1:v]format=yuv420p,setsar=1[p];[0:v]format=yuv420p,setsar=1[b];[b][p]concat=n=2:v=1[v]', '-map', '[v]',
      ...h264, video,
    ]);
    // One GOP for the whole clip (ultrafast: no key frame at the cut): no key frame after the seek point, so the
    // clip is decoded up to it instead.
    const { thumbnail } = await sign(video, 'video/mp4');
    near(await meanColour(thumbnail!.bytes, { left: 0.05, top: 0.1, width: 0.35, height: 0.8 }), RED);
    // A key frame every second, as cameras and encoders write them: key frames only, from the seek point on.
    const gops = path.join(dir, 'black-open-gops.mp4');
    await ffmpeg(['-i', video, ...h264, '-g', '25', gops]);
    const keyed = await sign(gops, 'video/mp4');
    near(await meanColour(keyed.thumbnail!.bytes, { left: 0.6, top: 0.1, width: 0.35, height: 0.8 }), BLUE);
  });

  it('without a frame to take, the video is signed without a thumbnail and the reason is reported', async () => {
    const video = path.join(dir, 'plain.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.5', ...h264, video]);
    // ffmpeg not installed (or FFMPEG_PATH wrong), and FFMPEG_PATH=off.
    for (const ffmpegPath of [path.join(dir, 'no-such-ffmpeg'), undefined]) {
      const { report, thumbnail, errors } = await sign(video, 'video/mp4', { ffmpegPath });
      expect(report.manifest?.thumbnail).to.equal(null);
      expect(thumbnail).to.equal(undefined);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.be.instanceOf(ThumbnailError);
      expect(String(errors[0])).to.match(/FFMPEG_PATH/);
    }
    // An MP4 with sound only: nothing to draw.
    const soundOnly = path.join(dir, 'sound-only.mp4');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', '-c:a', 'aac', '-f', 'mp4', soundOnly]);
    const silent = await sign(soundOnly, 'video/mp4');
    expect(silent.thumbnail).to.equal(undefined);
    expect(String(silent.errors[0])).to.match(/ffmpeg could not decode a frame/);
    // Audio has no picture; a file without a thumbnail asked for reports nothing.
    const audio = path.join(dir, 'tone.m4a');
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', '-c:a', 'aac', audio]);
    const tone = await sign(audio, 'audio/mp4');
    expect(tone.thumbnail).to.equal(undefined);
    expect(String(tone.errors[0])).to.match(/no picture/);
    const unasked = await sign(video, 'video/mp4', { thumbnail: false });
    expect([unasked.thumbnail, unasked.errors]).to.deep.equal([undefined, []]);
  });

  it('a file that is no video (a text body) gives ffmpeg nothing to decode: a VideoFrameError with ffmpeg’s reason, not a crash', async () => {
    const text = path.join(dir, 'notes.mp4');
    await writeFile(text, 'not a video at all\n');
    const err = await videoFrame(text, { ffmpegPath: 'ffmpeg', longEdge: 512 }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(VideoFrameError);
    expect(String(err)).to.match(/ffmpeg could not decode a frame: .*Invalid data/);
  });

  it('takes the frame as RGB pixels at the size asked for, and refuses output that is not a whole picture', async () => {
    const video = path.join(dir, 'pixels.mp4');
    await ffmpeg(['-loop', '1', '-i', redBlue, '-t', '1', ...h264, video]);
    const frame = await videoFrame(video, { ffmpegPath: 'ffmpeg', longEdge: 100 });
    expect([frame.width, frame.height, frame.channels, frame.data.length]).to.deep.equal([100, 56, 3, 100 * 56 * 3]);
    near([...frame.data.subarray(0, 3)], RED);
    near([...frame.data.subarray((56 * 100 - 1) * 3)], BLUE);
    const ppm = (header: string, bytes: number) => Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(bytes)]);
    expect(parsePpm(ppm('P6\n2 2\n255\n', 12)).data.length).to.equal(12);
    for (const [header, bytes] of [['P6\n2 2\n255\n', 11], ['P6\n2 2\n255\n', 13], ['P6\n2 2\n65535\n', 24], ['P5\n2 2\n255\n', 4], ['P6\n0 2\n255\n', 0], ['', 0]] as const) {
      expect(() => parsePpm(ppm(header, bytes)), header).to.throw(VideoFrameError);
    }
    expect(await videoFrame(video, { ffmpegPath: 'ffmpeg', longEdge: 0 }).then(() => undefined, (e: unknown) => e)).to.be.instanceOf(RangeError);
  });
});
