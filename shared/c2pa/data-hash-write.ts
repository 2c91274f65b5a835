import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { bufferRing, COPY_CHUNK_BYTES, readExactly, writeChunksToNewFile } from './file-handle-io.js';

/**
 * Writes a file signed with a c2pa.hash.data (WAV, MP3, FLAC) in one sequential pass, as its plan lists it, and hashes
 * it as it goes: every byte but the manifest's room, which is what the data hash's one exclusion leaves out. The room is
 * written as zeros, then filled with the signed manifest (bmff-write.ts's writeRoom). Memory: three chunk buffers,
 * reused, whatever the file's size; the next read runs while this chunk is hashed and written.
 */

/** One piece of the output, in order: bytes made here, a range of the source copied as it is, or the manifest's room. */
export type Piece = { bytes: Buffer } | { from: number; to: number } | { room: number };

/** The output: its pieces (exactly one room) and where the room is. */
export interface DataHashPlan {
  pieces: Piece[];
  size: number;
  room: { offset: number; size: number };
}

/** The plan of `pieces`: its size and its room's place. */
export function planOf(pieces: Piece[]): DataHashPlan {
  let size = 0;
  let room: { offset: number; size: number } | undefined;
  for (const piece of pieces) {
    const length = 'bytes' in piece ? piece.bytes.length : 'room' in piece ? piece.room : piece.to - piece.from;
    if ('room' in piece) {
      if (room) throw new RangeError('a plan has one room');
      room = { offset: size, size: piece.room };
    }
    size += length;
  }
  if (!room) throw new RangeError('a plan has one room');
  return { pieces, size, room };
}

/** The output's bytes in order, with whether each is hashed (all but the room). */
async function* outputChunks(source: FileHandle, plan: DataHashPlan): AsyncGenerator<{ chunk: Buffer; hashed: boolean }> {
  // The one consumer (writeDataHashed) asks for the next chunk while this one is hashed and the one before is written.
  const buffer = bufferRing(COPY_CHUNK_BYTES);
  for (const piece of plan.pieces) {
    if ('bytes' in piece) yield { chunk: piece.bytes, hashed: true };
    else if ('room' in piece) yield { chunk: Buffer.alloc(piece.room), hashed: false };
    else for (let at = piece.from; at < piece.to; at += COPY_CHUNK_BYTES) yield { chunk: await readExactly(source, Math.min(COPY_CHUNK_BYTES, piece.to - at), at, buffer()), hashed: true };
  }
}

/**
 * Writes the planned output from `source` to a new file at `outputPath` (removed again on failure) and returns the
 * SHA-256 of its bytes outside the room: the data hash's digest.
 */
export async function writeDataHashed(source: FileHandle, plan: DataHashPlan, outputPath: string): Promise<Buffer> {
  const hash = createHash('sha256');
  await writeChunksToNewFile(outputPath, outputChunks(source, plan), (piece) => piece.chunk, (piece) => {
    if (piece.hashed) hash.update(piece.chunk);
  }, plan.size);
  return hash.digest();
}
