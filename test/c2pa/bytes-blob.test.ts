/**
 * BytesBlob: the Blob c2pa-wasm reads sources through. It holds no copy of the bytes, so what c2pa-wasm and
 * other Blob readers see must come from the wrapped array: size, type, slices and FileReaderSync.
 */
import { expect } from 'chai';
import { BytesBlob, c2paWasm } from '../../shared/c2pa/wasm.js';

describe('c2pa: BytesBlob', function () {
  const bytes = new TextEncoder().encode('0123456789');

  before(() => c2paWasm()); // installs FileReaderSync

  it('answers size, type and the Blob reading methods from the wrapped bytes', async function () {
    const blob = new BytesBlob(bytes, 'image/jpeg');
    expect(blob.size).to.equal(10);
    expect(blob.type).to.equal('image/jpeg');
    expect(await blob.text()).to.equal('0123456789');
    expect(new Uint8Array(await blob.arrayBuffer())).to.deep.equal(bytes);
    expect(await new Response(blob.stream()).text()).to.equal('0123456789');
  });

  it('slices by Blob rules (negative from the end, clamped) and FileReaderSync reads whole arrays and slices', function () {
    const blob = new BytesBlob(bytes);
    const tail = blob.slice(-3);
    expect(tail).to.be.instanceOf(BytesBlob);
    expect(tail.size).to.equal(3);
    expect(blob.slice(8, 99).size).to.equal(2);
    const reader = new (globalThis as unknown as { FileReaderSync: new () => { readAsArrayBuffer(b: Blob): ArrayBuffer } }).FileReaderSync();
    expect(new TextDecoder().decode(reader.readAsArrayBuffer(blob))).to.equal('0123456789');
    expect(new TextDecoder().decode(reader.readAsArrayBuffer(tail))).to.equal('789');
    expect(reader.readAsArrayBuffer(tail).byteLength).to.equal(3); // a slice is copied out, not its whole buffer
  });
});
