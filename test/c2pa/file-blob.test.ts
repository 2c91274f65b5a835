/**
 * FileBlob: the Blob c2pa-wasm reads a source on disk through. Its bytes come from the file, read synchronously when
 * the FileReaderSync stand-in asks (c2pa-rs reads sources over 50 MB one slice per read), with a read-ahead block for
 * sequential reads: every way of reading must give the file's bytes, whatever the order.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { c2paWasm, c2paWasmMemoryBytes, FILE_BLOB_READ_AHEAD_BYTES, FileBlob } from '../../shared/c2pa/wasm.js';

type Reader = { readAsArrayBuffer(b: Blob): ArrayBuffer };
const reader = (): Reader => new (globalThis as unknown as { FileReaderSync: new () => Reader }).FileReaderSync();
const read = (blob: Blob) => Buffer.from(reader().readAsArrayBuffer(blob));

describe('c2pa: FileBlob', function () {
  let dir: string;
  let file: string;
  /** Three read-ahead blocks and a bit: reads cross block edges. */
  const content = randomBytes(3 * FILE_BLOB_READ_AHEAD_BYTES + 12345);

  before(() => {
    c2paWasm(); // installs FileReaderSync
    dir = mkdtempSync(path.join(tmpdir(), 'file-blob-'));
    file = path.join(dir, 'data.bin');
    writeFileSync(file, content);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers size and type, and slices by Blob rules (negative from the end, clamped, relative to the slice)', function () {
    using blob = FileBlob.open(file, 'video/mp4');
    expect(blob.size).to.equal(content.length);
    expect(blob.type).to.equal('video/mp4');
    expect(blob.path).to.equal(file);
    const tail = blob.slice(-10);
    expect(tail).to.be.instanceOf(FileBlob);
    expect(tail.size).to.equal(10);
    expect(tail.type).to.equal('');
    expect(read(tail)).to.deep.equal(content.subarray(-10));
    expect(blob.slice(content.length - 2, content.length + 99).size).to.equal(2);
    expect(blob.slice(50, 10).size).to.equal(0);
    const inner = blob.slice(100, 1100).slice(10, 20, 'x/y');
    expect(inner.type).to.equal('x/y');
    expect(read(inner)).to.deep.equal(content.subarray(110, 120));
    expect(blob.head(16)).to.deep.equal(new Uint8Array(content.subarray(0, 16)));
  });

  it('gives the file bytes to sequential small reads (the read-ahead), scattered reads and whole reads alike', function () {
    using blob = FileBlob.open(file);
    // Sequential 8 KiB reads, as std::io::copy makes them: served from read-ahead blocks.
    const parts: Buffer[] = [];
    for (let at = 0; at < blob.size; at += 8192) parts.push(read(blob.slice(at, at + 8192)));
    expect(Buffer.concat(parts).equals(content)).to.equal(true);
    // Scattered reads (box headers), and reads that straddle a block edge, in any order.
    for (const [start, length] of [[5, 8], [FILE_BLOB_READ_AHEAD_BYTES - 3, 10], [2 * FILE_BLOB_READ_AHEAD_BYTES + 7, 40], [17, 3], [content.length - 1, 1]] as const) {
      expect(read(blob.slice(start, start + length))).to.deep.equal(content.subarray(start, start + length));
    }
    // A read larger than a block, then a whole read.
    expect(read(blob.slice(1000, 1000 + 2 * FILE_BLOB_READ_AHEAD_BYTES)).equals(content.subarray(1000, 1000 + 2 * FILE_BLOB_READ_AHEAD_BYTES))).to.equal(true);
    expect(read(blob).equals(content)).to.equal(true);
    // Each read gets an ArrayBuffer of exactly its bytes (c2pa-wasm copies the whole buffer it is given).
    expect(reader().readAsArrayBuffer(blob.slice(10, 20)).byteLength).to.equal(10);
  });

  it('serves the async Blob methods from the file too', async function () {
    const small = path.join(dir, 'small.txt');
    writeFileSync(small, 'hello, file');
    using blob = FileBlob.open(small, 'text/plain');
    expect(await blob.text()).to.equal('hello, file');
    expect(Buffer.from(await blob.arrayBuffer()).toString()).to.equal('hello, file');
    expect(await new Response(blob.slice(7).stream()).text()).to.equal('file');
  });

  it('throws on a missing file at once, on reads after close, and on a file that shrank (never a short read)', function () {
    expect(() => FileBlob.open(path.join(dir, 'missing.bin'))).to.throw(/ENOENT/);
    const blob = FileBlob.open(file);
    const slice = blob.slice(0, 10);
    blob.close();
    blob.close(); // twice is fine
    expect(() => read(slice)).to.throw(/after it was closed/);

    const shrinking = path.join(dir, 'shrinking.bin');
    writeFileSync(shrinking, content.subarray(0, 100_000));
    using open = FileBlob.open(shrinking);
    truncateSync(shrinking, 50_000);
    expect(() => read(open.slice(40_000, 60_000))).to.throw(/ended 10000 bytes early/);
  });

  it('FileReaderSync still refuses Blobs it cannot read synchronously', function () {
    expect(() => reader().readAsArrayBuffer(new Blob(['x']))).to.throw(TypeError, /BytesBlob and FileBlob/);
    expect(c2paWasmMemoryBytes()).to.be.greaterThan(0);
  });
});
