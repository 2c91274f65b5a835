import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as c2pa from '@contentauth/c2pa-wasm';

/**
 * c2pa-rs compiled to WebAssembly (@contentauth/c2pa-wasm), loaded once per process.
 *
 * The package targets browsers and workers. Two things Node lacks are provided here:
 * - the WASM bytes: read from the package's own `./c2pa.wasm` export and instantiated synchronously;
 * - `FileReaderSync`: the builder reads every source Blob through it (see BytesBlob below).
 */

export type C2paWasm = typeof c2pa;

let loaded = false;

/** Resolved through the package's exports map, so hoisting or a different install layout cannot break it. */
function wasmPath(): string {
  return createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
}

/**
 * Returns the initialised module. The first call reads and compiles the 9 MB WASM (60-100 ms measured here);
 * later calls are free. Synchronous on purpose: callers never race two instantiations.
 */
export function c2paWasm(): C2paWasm {
  if (!loaded) {
    installFileReaderSync();
    c2pa.initSync({ module: readFileSync(wasmPath()) });
    loaded = true;
  }
  return c2pa;
}

/**
 * A Blob over a Uint8Array, readable synchronously (see installFileReaderSync). c2pa-wasm uses only `size`,
 * `slice` and FileReaderSync on it; the Blob half stays empty rather than holding a copy of the bytes: for a
 * 5 MB photo that copy was 5 MB of garbage per signature, and in a worker process with a large heap the
 * extra major GCs cost more CPU than the signing around them. The reading methods still serve the bytes.
 * `slice` must return a BytesBlob too: c2pa-wasm reads blobs over 50 MB slice by slice.
 * Do not modify the array after wrapping it: nothing here copies it.
 */
export class BytesBlob extends Blob {
  /** The bytes (`bytes` would clash with Blob.bytes()). */
  readonly content: Uint8Array;
  readonly #type: string;

  constructor(content: Uint8Array, type = '') {
    super([]);
    this.content = content;
    this.#type = type;
  }

  // The empty Blob's own answers would be 0 and ''.
  override get size(): number {
    return this.content.byteLength;
  }

  override get type(): string {
    return this.#type;
  }

  override slice(start?: number, end?: number, contentType?: string): BytesBlob {
    // subarray follows Blob.slice's index rules (negative counts from the end, out of range clamps).
    return new BytesBlob(this.content.subarray(start, end), contentType ?? '');
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return copyOut(this.content);
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(this.content);
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return new Blob([this.content as Uint8Array<ArrayBuffer>]).stream();
  }
}

/** The bytes as an ArrayBuffer of their own. */
function copyOut(content: Uint8Array): ArrayBuffer {
  return content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
}

/** The part of `FileReaderSync` c2pa-wasm uses. */
interface SyncBlobReader {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}
type SyncBlobReaderClass = new () => SyncBlobReader;

/**
 * Installs a `FileReaderSync` that reads BytesBlob. Throwing on anything else matters: c2pa-wasm turns a failed
 * whole-blob read into an empty stream (`unwrap_or_default`), which surfaces later as a confusing format error.
 * A FileReaderSync that already exists (a browser worker, Deno, another module's stand-in) still serves
 * every other Blob.
 */
function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: SyncBlobReaderClass };
  const previous = g.FileReaderSync;
  if (previous && (previous as { readsBytesBlob?: boolean }).readsBytesBlob) return;
  g.FileReaderSync = class NodeFileReaderSync implements SyncBlobReader {
    static readonly readsBytesBlob = true;

    readAsArrayBuffer(blob: Blob): ArrayBuffer {
      if (blob instanceof BytesBlob) {
        const { content } = blob;
        // The WASM side wraps the result in a Uint8Array over the whole buffer and copies it into WASM memory
        // without writing to it: a buffer that holds exactly these bytes is passed as it is, others are copied.
        const whole = content.byteOffset === 0 && content.byteLength === content.buffer.byteLength && content.buffer instanceof ArrayBuffer;
        return whole ? (content.buffer as ArrayBuffer) : copyOut(content);
      }
      if (previous) return new previous().readAsArrayBuffer(blob);
      throw new TypeError('c2pa-wasm in Node reads only BytesBlob (a Blob that keeps its bytes); wrap the bytes in one');
    }
  };
}
