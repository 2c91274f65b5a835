/** Positional reads and writes on a file handle that finish the whole range (a single call may do part of it). */
import type { FileHandle } from 'node:fs/promises';

/** `length` bytes of `source` from `position`; a source that ends first changed while it was being signed. */
export async function readExactly(source: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  for (let done = 0; done < length; ) {
    const { bytesRead } = await source.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`the source ended ${length - done} bytes early (changed while it was being signed)`);
    done += bytesRead;
  }
  return buffer;
}

/** All of `chunk` written at `position`. */
export async function writeFully(handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < chunk.byteLength; ) done += (await handle.write(chunk, done, chunk.byteLength - done, position + done)).bytesWritten;
}
