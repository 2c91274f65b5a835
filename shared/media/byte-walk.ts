import { open, type FileHandle } from 'node:fs/promises';
import { corrupt } from './errors.js';

/**
 * Structure walks are written once as generators that yield the reads they need ({ pos, len }) and receive the
 * bytes (shorter than asked only at the end of the file, empty past it). Two drivers run them: over bytes in memory
 * (synchronous: sniffMediaType) and over a file handle (reading slices, never the whole file: identifyMedia).
 */
export interface ReadRequest {
  readonly pos: number;
  readonly len: number;
}

export type Walk<T> = Generator<ReadRequest, T, Buffer>;

const EMPTY: Buffer = Buffer.alloc(0);

/** Up to `len` bytes at `pos` (fewer at the end of the file). */
export function* readAt(pos: number, len: number): Walk<Buffer> {
  if (len <= 0) return EMPTY;
  return yield { pos, len };
}

/** Exactly `len` bytes at `pos`, or a `corrupt` rejection: "<what> is truncated". */
export function* readExactly(pos: number, len: number, what: string): Walk<Buffer> {
  const bytes = yield* readAt(pos, len);
  if (bytes.length !== len) throw corrupt(`${what} is truncated`);
  return bytes;
}

const ascii = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', from, to);

/** A four-character code of printable ASCII (box, chunk and brand names). */
export const isFourCC = (code: string) => /^[\x20-\x7e]{4}$/.test(code);

/** Runs a walk over bytes in memory. */
export function runOnBytes<T>(walk: Walk<T>, bytes: Uint8Array): T {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let step = walk.next();
  while (!step.done) {
    const { pos, len } = step.value;
    step = walk.next(pos >= buf.length ? EMPTY : buf.subarray(pos, pos + len));
  }
  return step.value;
}

/** Small reads are served from a window of this size read ahead; larger ones are read as they are. */
const WINDOW = 256 * 1024;

async function readFully(fh: FileHandle, length: number, position: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await fh.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buf : buf.subarray(0, filled);
}

/** Runs a walk over an open file of `size` bytes, reading only what it asks for (plus read-ahead). */
export async function runOnFile<T>(walk: Walk<T>, fh: FileHandle, size: number): Promise<T> {
  let window: Buffer = EMPTY;
  let windowPos = 0;
  let step = walk.next();
  while (!step.done) {
    const { pos, len } = step.value;
    const end = Math.min(pos + len, size);
    let out: Buffer;
    if (pos >= size || end <= pos) {
      out = EMPTY;
    } else if (pos >= windowPos && end <= windowPos + window.length) {
      out = window.subarray(pos - windowPos, end - windowPos);
    } else if (end - pos >= WINDOW) {
      out = await readFully(fh, end - pos, pos);
    } else {
      // A fresh buffer each time: a walk may still hold a slice of the previous window.
      window = await readFully(fh, Math.min(WINDOW, size - pos), pos);
      windowPos = pos;
      out = window.subarray(0, end - pos);
    }
    step = walk.next(out);
  }
  return step.value;
}

/**
 * `walk(size)` run over the file at `filePath`, for metadata that is a nicety (a title, a duration): undefined when
 * there is no walk, or the walk fails on the file.
 */
export async function walkFileOrUndefined<T>(filePath: string, walk: ((size: number) => Walk<T | undefined>) | undefined): Promise<T | undefined> {
  if (!walk) return undefined;
  const fh = await open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    return await runOnFile(walk(size), fh, size);
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}
