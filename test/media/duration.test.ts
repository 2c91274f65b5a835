import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { isoDuration, mediaDurationSeconds } from '../../shared/media/duration.js';

/** Playing time from the header where the format carries one: ISO media (mvhd) and WAV (byte rate and data size). */
describe('media: duration', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'duration-'));
  const out = (name: string) => path.join(dir, name);
  const ffmpeg = (args: string[], name: string) => execFileSync('ffmpeg', ['-loglevel', 'error', '-y', ...args, out(name)]);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads MP4, MOV, M4A and WAV; says nothing for MP3, images and unreadable files', async () => {
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1.5', '-pix_fmt', 'yuv420p'], 'a.mp4');
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1.5', '-pix_fmt', 'yuv420p'], 'a.mov');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2.5', '-c:a', 'aac'], 'a.m4a');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000:duration=3'], 'a.wav');
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'], 'a.mp3');
    expect(await mediaDurationSeconds(out('a.mp4'), 'video/mp4')).to.be.closeTo(1.5, 0.01);
    expect(await mediaDurationSeconds(out('a.mov'), 'video/quicktime')).to.be.closeTo(1.5, 0.01);
    expect(await mediaDurationSeconds(out('a.m4a'), 'audio/mp4')).to.be.closeTo(2.5, 0.05);
    expect(await mediaDurationSeconds(out('a.wav'), 'audio/wav')).to.equal(3);
    expect(await mediaDurationSeconds(out('a.mp3'), 'audio/mpeg')).to.equal(undefined);
    writeFileSync(out('junk.mp4'), 'not an mp4 at all');
    expect(await mediaDurationSeconds(out('junk.mp4'), 'video/mp4')).to.equal(undefined);
  });

  it('writes ISO 8601 durations as schema.org does', () => {
    expect(isoDuration(2)).to.equal('PT2S');
    expect(isoDuration(1.5)).to.equal('PT1.5S');
    expect(isoDuration(62.25)).to.equal('PT1M2.25S');
    expect(isoDuration(3600)).to.equal('PT1H');
    expect(isoDuration(0)).to.equal('PT0S');
  });
});
