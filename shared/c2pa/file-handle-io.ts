/** Positional reads and writes on a file handle that finish the whole range (a single call may do part of it). */
import { open, rm, type FileHandle } from 'node:fs/promises';

/**
 * `length` bytes of `source` from `position`, in `into` when given (a buffer of at least that many bytes); a source
 * that ends first changed while it was being signed.
 */
export async function readExactly(source: FileHandle, length: number, position: number, into?: Buffer): Promise<Buffer> {
  const buffer = into ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  if (buffer.length < length) throw new RangeError(`a buffer of ${into!.length} bytes cannot hold ${length}`);
  for (let done = 0; done < length; ) {
    const { bytesRead } = await source.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`the source ended ${length - done} bytes early (changed while it was being signed)`);
    done += bytesRead;
  }
  return buffer;
}

/** Bytes a signing pass reads, hashes and writes at a time (bmff-write.ts, data-hash-write.ts). */
export const COPY_CHUNK_BYTES = 1024 * 1024;

/**
 * Buffers for a pass that reads the next chunk while this one is hashed and the one before is still being written
 * (bmff-write.ts, data-hash-write.ts): three of `bytes`, taken in turn, so one comes round again only after two more
 * were taken. Reused rather than allocated per chunk: a new buffer is new pages for the kernel to map.
 */
export function bufferRing(bytes: number): () => Buffer {
  const ring = [Buffer.allocUnsafe(bytes), Buffer.allocUnsafe(bytes), Buffer.allocUnsafe(bytes)];
  let turn = 0;
  return () => {
    const buffer = ring[turn]!;
    turn = (turn + 1) % ring.length;
    return buffer;
  };
}

/** All of `chunk` written at `position`. */
export async function writeFully(handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < chunk.byteLength; ) done += (await handle.write(chunk, done, chunk.byteLength - done, position + done)).bytesWritten;
}

/**
 * Writes `chunks` in order to a new file at `outputPath` (one there before is replaced; removed again on failure),
 * handing each item to `onChunk` as it goes (a chunk is valid only during that call). The next item is asked for
 * before this one is handled, so its read runs while this chunk is hashed and the one before is written. A total
 * other than `size` bytes is an error.
 */
export async function writeChunksToNewFile<T>(outputPath: string, chunks: AsyncGenerator<T>, chunkOf: (item: T) => Buffer, onChunk: (item: T) => void, size: number): Promise<void> {
  await rm(outputPath, { force: true });
  const output = await open(outputPath, 'wx', 0o600);
  let next = chunks.next();
  let writing: Promise<void> = Promise.resolve();
  try {
    let position = 0;
    for (let current = await next; !current.done; current = await next) {
      next = chunks.next();
      const chunk = chunkOf(current.value);
      await writing;
      writing = writeFully(output, chunk, position);
      onChunk(current.value);
      position += chunk.length;
    }
    await writing;
    if (position !== size) throw new Error(`wrote ${position} bytes where ${size} were planned`);
    await output.close();
  } catch (err) {
    // The read asked for ahead, and the write under way, end before the file is removed.
    await next.catch(() => undefined);
    await chunks.return(undefined).catch(() => undefined);
    await writing.catch(() => undefined);
    await output.close().catch(() => undefined);
    await rm(outputPath, { force: true });
    throw err;
  }
}

/** Bytes readAhead reads at a time. */
export const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * The bytes of `source` in [from, to), in order, in chunks of at most `chunkBytes`, the next chunk's read under way
 * while this one is used. Two buffers serve in turn: a chunk is valid only until the next one is asked for. A source
 * that ends first is `ended()` (default: an Error saying it changed while it was read).
 */
export async function* readAhead(source: FileHandle, from: number, to: number, options: { chunkBytes?: number; ended?: () => Error } = {}): AsyncGenerator<Buffer> {
  if (to <= from) return;
  const size = Math.min(options.chunkBytes ?? READ_AHEAD_BYTES, to - from);
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  const readInto = async (buffer: Buffer, position: number): Promise<Buffer> => {
    const length = Math.min(buffer.length, to - position);
    for (let done = 0; done < length; ) {
      const { bytesRead } = await source.read(buffer, done, length - done, position + done);
      if (bytesRead === 0) throw options.ended?.() ?? new Error(`the file ended ${to - position - done} bytes early (changed while it was read)`);
      done += bytesRead;
    }
    return buffer.subarray(0, length);
  };
  let turn = 0;
  let pending: Promise<Buffer> | undefined = readInto(buffers[turn]!, from);
  try {
    for (let position = from; pending; ) {
      const chunk: Buffer = await pending;
      position += chunk.length;
      turn ^= 1;
      pending = position < to ? readInto(buffers[turn]!, position) : undefined;
      yield chunk;
    }
  } finally {
    // Left early (the caller stopped or failed): the read under way ends before its buffer may go.
    await pending?.catch(() => undefined);
  }
}
