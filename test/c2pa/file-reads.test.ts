/**
 * The reads every streamed check makes over a whole file: readAhead (a range in chunks, the next read under way while
 * one is used) and sha256OfFiles (on a thread of its own, which can be started before the files exist), against the
 * same bytes hashed in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readAhead } from '../../shared/c2pa/file-handle-io.js';
import { sha256OfFiles, startHashingThread } from '../../shared/c2pa/file-sha256.js';

describe('c2pa: whole-file reads', function () {
  let dir: string;
  let filePath: string;
  // Not a multiple of any chunk size used below.
  const bytes = randomBytes(3 * 1024 * 1024 + 12_345);

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'file-reads-'));
    filePath = path.join(dir, 'bytes');
    writeFileSync(filePath, bytes);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function collect(from: number, to: number, options: Parameters<typeof readAhead>[3] = {}): Promise<Buffer[]> {
    const handle = await open(filePath, 'r');
    try {
      const chunks: Buffer[] = [];
      // Copied: a chunk is valid only until the next is asked for.
      for await (const chunk of readAhead(handle, from, to, options)) chunks.push(Buffer.from(chunk));
      return chunks;
    } finally {
      await handle.close();
    }
  }

  it('readAhead gives the range in order, in chunks of at most the size asked for, the last one short', async () => {
    const chunks = await collect(1000, bytes.length - 7, { chunkBytes: 64 * 1024 });
    expect(Buffer.concat(chunks).equals(bytes.subarray(1000, bytes.length - 7))).to.equal(true);
    expect(chunks.slice(0, -1).every((c) => c.length === 64 * 1024)).to.equal(true);
    expect(chunks.at(-1)!.length).to.equal((bytes.length - 7 - 1000) % (64 * 1024));
    expect(Buffer.concat(await collect(0, bytes.length)).equals(bytes)).to.equal(true);
    expect(await collect(500, 500)).to.deep.equal([]);
  });

  it('readAhead: a file that ends before the range does is the error the caller names; a caller that stops early leaves no read behind', async () => {
    class Ended extends Error {}
    const err = await collect(0, bytes.length + 10, { chunkBytes: 1024 * 1024, ended: () => new Ended('ended') }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Ended);
    expect(String(await collect(0, bytes.length + 10).catch((e: unknown) => e))).to.match(/ended 10 bytes early/);
    const handle = await open(filePath, 'r');
    let seen = 0;
    for await (const chunk of readAhead(handle, 0, bytes.length, { chunkBytes: 4096 })) {
      seen += chunk.length;
      if (seen >= 8192) break;
    }
    await handle.close();
    expect(seen).to.equal(8192);
  });

  it('sha256OfFiles hashes each file whole, in order, on its own thread; a file it cannot read rejects naming it', async () => {
    const other = path.join(dir, 'empty');
    writeFileSync(other, Buffer.alloc(0));
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(await sha256OfFiles([filePath, other])).to.deep.equal([sha(bytes), sha(Buffer.alloc(0))]);
    const missing = path.join(dir, 'missing');
    expect(String(await sha256OfFiles([missing]).catch((e: unknown) => e))).to.include(missing);
  });

  it('a hashing thread started before its file is written hashes it as written; one closed unused, or asked twice, ends', async () => {
    const thread = startHashingThread();
    const later = path.join(dir, 'later');
    writeFileSync(later, bytes.subarray(0, 1000));
    expect(await thread.sha256Of([later])).to.deep.equal([createHash('sha256').update(bytes.subarray(0, 1000)).digest('hex')]);
    expect(String(await thread.sha256Of([later]).catch((e: unknown) => e))).to.match(/hashes once/);
    await thread.close();
    await startHashingThread().close();
  });
});
