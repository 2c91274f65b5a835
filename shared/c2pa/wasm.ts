import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as c2pa from '@contentauth/c2pa-wasm';

/**
 * c2pa-rs compiled to WebAssembly (@contentauth/c2pa-wasm), loaded once per process.
 *
 * The package targets browsers and workers. Two things Node lacks are provided here:
 * - the WASM bytes: read from the package's own `./c2pa.wasm` export and instantiated synchronously;
 * - `FileReaderSync`: the builder and reader read every source Blob through it (see BytesBlob and FileBlob below).
 *
 * How c2pa-wasm reads a source Blob (c2pa-js BlobStream): a Blob of at most 50 MB is read whole into WASM memory
 * first; a larger one is read lazily, one `slice()` + `FileReaderSync.readAsArrayBuffer` per read c2pa-rs makes.
 * A FileBlob therefore keeps a large source on disk: only the ranges c2pa-rs asks for are read, when it asks.
 */

export type C2paWasm = typeof c2pa;

let exports: c2pa.InitOutput | undefined;

/** Resolved through the package's exports map, so hoisting or a different install layout cannot break it. */
function wasmPath(): string {
  return createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
}

/**
 * Returns the initialised module. The first call reads and compiles the 9 MB WASM (60-100 ms measured here);
 * later calls are free. Synchronous on purpose: callers never race two instantiations.
 */
export function c2paWasm(): C2paWasm {
  if (!exports) {
    installFileReaderSync();
    exports = c2pa.initSync({ module: readFileSync(wasmPath()) });
  }
  return c2pa;
}

/**
 * Bytes of WASM linear memory the C2PA module holds (0 before it is loaded). WebAssembly memory only grows: what
 * c2pa-rs once needed (for a large file, about twice the signed file, see sign-asset.ts) stays allocated to this
 * process until it exits.
 */
export function c2paWasmMemoryBytes(): number {
  return exports?.memory.buffer.byteLength ?? 0;
}

/** How the FileReaderSync stand-in reads a Blob of this module: its bytes, synchronously, in a buffer of their own. */
const READ_SYNC = Symbol.for('media-signing-service.c2pa.readSync');

interface SyncReadable {
  [READ_SYNC](): ArrayBuffer;
}

function isSyncReadable(blob: Blob): blob is Blob & SyncReadable {
  return typeof (blob as Partial<SyncReadable>)[READ_SYNC] === 'function';
}

/** Blob.slice's index rules: negative counts from the end, out of range clamps, end before start is empty. */
function sliceBounds(size: number, start = 0, end = size): [number, number] {
  const clamp = (i: number) => (i < 0 ? Math.max(size + i, 0) : Math.min(i, size));
  const from = clamp(Math.trunc(start) || 0);
  const to = clamp(Math.trunc(end) || 0);
  return [from, Math.max(from, to)];
}

/**
 * A Blob over a Uint8Array, readable synchronously (see installFileReaderSync). c2pa-wasm uses only `size`,
 * `slice` and FileReaderSync on it; the Blob half stays empty rather than holding a copy of the bytes: for a
 * 5 MB photo that copy was 5 MB of garbage per signature, and in a worker process with a large heap the
 * extra major GCs cost more CPU than the signing around them. The reading methods still serve the bytes.
 * `slice` must return a BytesBlob too: c2pa-wasm reads blobs over 50 MB slice by slice.
 * Do not modify the array after wrapping it: nothing here copies it.
 */
export class BytesBlob extends Blob implements SyncReadable {
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

  [READ_SYNC](): ArrayBuffer {
    const { content } = this;
    // The WASM side wraps the result in a Uint8Array over the whole buffer and copies it into WASM memory
    // without writing to it: a buffer that holds exactly these bytes is passed as it is, others are copied.
    const whole = content.byteOffset === 0 && content.byteLength === content.buffer.byteLength && content.buffer instanceof ArrayBuffer;
    return whole ? (content.buffer as ArrayBuffer) : copyOut(content);
  }
}

/** The bytes as an ArrayBuffer of their own. */
function copyOut(content: Uint8Array): ArrayBuffer {
  return content.buffer.slice(content.byteOffset, content.byteOffset + content.byteLength) as ArrayBuffer;
}

/**
 * Sequential reads smaller than this are served from one read-ahead block of this size. c2pa-rs copies and
 * hashes a stream in small pieces (8 KiB for std::io::copy): without it, a 1 GiB file is 131,072 read(2) calls
 * per pass; with it, 1,024. Scattered reads (box headers) are read exactly, never a whole block each.
 */
export const FILE_BLOB_READ_AHEAD_BYTES = 1024 * 1024;

/** A file opened for a FileBlob and shared by its slices; closed once, by the blob that opened it. */
class OpenFile {
  #fd: number | undefined;
  readonly size: number;
  #block: Buffer | undefined;
  #blockStart = 0;
  #blockLength = 0;
  /** Where the last read ended: a read starting there is sequential. */
  #lastEnd = -1;

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'r');
    try {
      this.size = fstatSync(this.#fd).size;
    } catch (err) {
      closeSync(this.#fd);
      throw err;
    }
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  /** Exactly `length` bytes at `position`, in an ArrayBuffer of their own. */
  read(position: number, length: number): ArrayBuffer {
    const fd = this.#fd;
    if (fd === undefined) throw new Error(`FileBlob of ${this.path} was read after it was closed`);
    const out = new Uint8Array(new ArrayBuffer(length));
    const sequential = position === this.#lastEnd;
    this.#lastEnd = position + length;
    if (length === 0) return out.buffer;
    const inBlock = position >= this.#blockStart && position + length <= this.#blockStart + this.#blockLength;
    if (!inBlock && sequential && length < FILE_BLOB_READ_AHEAD_BYTES) {
      this.#block ??= Buffer.allocUnsafe(FILE_BLOB_READ_AHEAD_BYTES);
      this.#blockStart = position;
      this.#blockLength = Math.min(FILE_BLOB_READ_AHEAD_BYTES, this.size - position);
      readFully(fd, this.#block.subarray(0, this.#blockLength), position, this.path);
    }
    if (this.#block && position >= this.#blockStart && position + length <= this.#blockStart + this.#blockLength) {
      out.set(this.#block.subarray(position - this.#blockStart, position - this.#blockStart + length));
    } else {
      readFully(fd, out, position, this.path);
    }
    return out.buffer;
  }

  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    this.#block = undefined;
    closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number, path: string): void {
  let done = 0;
  while (done < into.byteLength) {
    const n = readSync(fd, into, done, into.byteLength - done, position + done);
    // The file shrank under us: c2pa-rs must not hash or copy a silently short read.
    if (n === 0) throw new Error(`${path} ended ${into.byteLength - done} bytes early (changed while it was being read)`);
    done += n;
  }
}

/**
 * A Blob over a range of a file on disk, read synchronously with fs.readSync when c2pa-wasm asks for its bytes
 * (through the FileReaderSync stand-in), so signing a 1 GB video does not hold the source in memory. Slices share
 * the open file; `close()` (or `using`) on the blob that opened it closes it for all of them.
 *
 * Node's own `fs.openAsBlob` cannot serve here: its bytes can only be read asynchronously, and c2pa-wasm reads
 * synchronously from inside WASM. The file must not change while a FileBlob is open on it (the service's
 * temp files do not): a file that shrinks makes reads throw rather than return short data.
 */
export class FileBlob extends Blob implements SyncReadable, Disposable {
  readonly #file: OpenFile;
  readonly #start: number;
  readonly #end: number;
  readonly #type: string;

  private constructor(file: OpenFile, start: number, end: number, type: string) {
    super([]);
    this.#file = file;
    this.#start = start;
    this.#end = end;
    this.#type = type;
  }

  /** Opens `path` (throws ENOENT and the like at once, not at the first read). */
  static open(path: string, type = ''): FileBlob {
    const file = new OpenFile(path);
    return new FileBlob(file, 0, file.size, type);
  }

  get path(): string {
    return this.#file.path;
  }

  override get size(): number {
    return this.#end - this.#start;
  }

  override get type(): string {
    return this.#type;
  }

  override slice(start?: number, end?: number, contentType?: string): FileBlob {
    const [from, to] = sliceBounds(this.size, start, end);
    return new FileBlob(this.#file, this.#start + from, this.#start + to, contentType ?? '');
  }

  [READ_SYNC](): ArrayBuffer {
    return this.#file.read(this.#start, this.size);
  }

  /** The first `length` bytes (fewer for a shorter blob), e.g. to recognise the format. */
  head(length: number): Uint8Array {
    return new Uint8Array(this.slice(0, length)[READ_SYNC]());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this[READ_SYNC]();
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(this[READ_SYNC]());
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const chunk = 256 * 1024;
    let offset = 0;
    return new ReadableStream<Uint8Array<ArrayBuffer>>({
      pull: (controller) => {
        if (offset >= this.size) return controller.close();
        const length = Math.min(chunk, this.size - offset);
        controller.enqueue(new Uint8Array(this.slice(offset, offset + length)[READ_SYNC]()));
        offset += length;
      },
    });
  }

  /** Closes the file for this blob and every slice of it. Safe to call twice. */
  close(): void {
    this.#file.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** The part of `FileReaderSync` c2pa-wasm uses. */
interface SyncBlobReader {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}
type SyncBlobReaderClass = new () => SyncBlobReader;

/**
 * Installs a `FileReaderSync` that reads BytesBlob and FileBlob. Throwing on anything else matters: c2pa-wasm turns
 * a failed whole-blob read into an empty stream (`unwrap_or_default`), which surfaces later as a confusing format
 * error. A FileReaderSync that already exists (a browser worker, Deno, another module's stand-in) still serves
 * every other Blob.
 */
function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: SyncBlobReaderClass };
  const previous = g.FileReaderSync;
  if (previous && (previous as { readsSyncReadable?: boolean }).readsSyncReadable) return;
  g.FileReaderSync = class NodeFileReaderSync implements SyncBlobReader {
    static readonly readsSyncReadable = true;

    readAsArrayBuffer(blob: Blob): ArrayBuffer {
      if (isSyncReadable(blob)) return blob[READ_SYNC]();
      if (previous) return new previous().readAsArrayBuffer(blob);
      throw new TypeError('c2pa-wasm in Node reads only BytesBlob and FileBlob (Blobs readable synchronously); wrap the bytes or the file in one');
    }
  };
}
