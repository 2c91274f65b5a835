/** mss sign's progress on stderr: a bar redrawn in place on a terminal, one plain line per file otherwise. */
import { expect } from 'chai';
import { Progress } from '../../clients/typescript/src/cli/progress.js';

function stream(isTTY: boolean): { written: string[]; stream: NodeJS.WriteStream } {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream };
}

describe('mss sign progress', () => {
  it('on a terminal: files done of total, bytes, failures, in one redrawn line; failures stay above it', () => {
    const out = stream(true);
    const progress = new Progress(4, 4 * 1536, out.stream);
    progress.finished('a.jpg', 1536, 'signed');
    progress.finished('b.txt', 1536, 'failed', 'unsupported_media_type: not a format');
    progress.finished('c.jpg', 1536, 'skipped');
    const last = out.written.at(-1)!;
    expect(last).to.match(/^\r\x1b\[K\[#{18}-{6}\] 3\/4 files, 4\.5 kB of 6\.0 kB, 1 failed$/);
    expect(out.written.join('')).to.include('failed 2/4 b.txt: unsupported_media_type: not a format\n');
    expect(out.written.filter((w) => w.includes('\n'))).to.have.length(1);
    progress.end();
    expect(out.written.at(-1)).to.equal('\r\x1b[K');
  });

  it('elsewhere: a line per file, no control characters', () => {
    const out = stream(false);
    const progress = new Progress(2, 10, out.stream);
    progress.finished('a.jpg', 5, 'signed');
    progress.finished('b.jpg', 5, 'skipped');
    progress.end();
    expect(out.written).to.deep.equal(['signed 1/2 a.jpg\n', 'already signed 2/2 b.jpg\n']);
  });

  it('counts the bytes of uploads on their way: on a terminal in the bar, elsewhere a line at each quarter of the run', () => {
    const tty = stream(true);
    const bar = new Progress(2, 4 * 1024 * 1024, tty.stream);
    bar.sent('a.mp4', 1024 * 1024);
    expect(tty.written.at(-1)).to.match(/0\/2 files, 1\.0 MB of 4\.0 MB$/);
    bar.finished('a.mp4', 2 * 1024 * 1024, 'signed');
    expect(tty.written.at(-1)).to.match(/1\/2 files, 2\.0 MB of 4\.0 MB$/);

    const plain = stream(false);
    const lines = new Progress(1, 1000, plain.stream);
    for (const sent of [100, 200, 260, 400, 600, 999, 1000]) lines.sent('a.mov', sent);
    expect(plain.written).to.deep.equal(['uploaded 260 B of 1000 B\n', 'uploaded 600 B of 1000 B\n', 'uploaded 999 B of 1000 B\n', 'uploaded 1000 B of 1000 B\n']);
  });
});

