import { open, type FileHandle } from 'node:fs/promises';
import { fieldValues, type FieldRun } from './bmff-offset-fields.js';
import type { BmffLayout, Edit, SizeField } from './bmff-layout.js';
import { C2PA_UUID, type BmffFileReader } from './bmff-walk.js';
import { bufferRing, COPY_CHUNK_BYTES, readExactly, writeChunksToNewFile, writeFully } from './file-handle-io.js';

/**
 * Writes the signed file as planned (bmff-layout.ts), in one sequential pass over the source: the source's bytes with
 * their offset fields moved, the manifest's room (a `free` box until the manifest is written into it), each `stco` to
 * widen rewritten as `co64`. Every byte written is handed to `onBytes` in order (the BMFF hash is computed from them),
 * while the next read and the last write run on libuv's thread pool. Memory: a few chunks, whatever the file's size.
 */

/** A field to patch as a run of fields (a size field is a run of one). */
type Patch = FieldRun & { change: (value: number) => number };

/** The end of a chunk that starts at `start`: at most `end`, and never inside a field. */
function chunkEnd(patches: readonly Patch[], from: number, start: number, end: number): number {
  let limit = end;
  for (let i = from; i < patches.length && patches[i]!.at < limit; i += 1) {
    const p = patches[i]!;
    const k = Math.floor((limit - p.at) / p.stride);
    if (k >= p.count) continue;
    const field = p.at + k * p.stride;
    if (limit > field && limit < field + p.width) limit = field > start ? field : field + p.width;
  }
  return limit;
}

const runEnd = (p: FieldRun) => p.at + (p.count - 1) * p.stride + p.width;

/** Applies the patches to `chunk`, which holds the source from `start` and splits no field. */
function patchChunk(chunk: Buffer, start: number, patches: readonly Patch[], from: number): void {
  const end = start + chunk.length;
  for (let i = from; i < patches.length && patches[i]!.at < end; i += 1) {
    const p = patches[i]!;
    if (runEnd(p) <= start) continue;
    const first = Math.max(0, Math.ceil((start - p.at) / p.stride));
    for (let k = first; k < p.count; k += 1) {
      const at = p.at + k * p.stride - start;
      if (at + p.width > chunk.length) break;
      if (p.width === 4) {
        chunk.writeUInt32BE(p.change(chunk.readUInt32BE(at)), at);
      } else {
        chunk.writeBigUInt64BE(BigInt(p.change(Number(chunk.readBigUInt64BE(at)))), at);
      }
    }
  }
}

/** The `free` box the room is until the manifest is written into it. */
function freeBox(size: number): Buffer {
  const box = Buffer.alloc(size);
  box.writeUInt32BE(size, 0);
  box.write('free', 4, 'latin1');
  return box;
}

/** A `stco` rewritten as `co64`: the same header form, version and flags, count, and every entry moved and widened. */
async function* co64Of(file: BmffFileReader, edit: Edit & { content: { kind: 'co64' } }, moved: (offset: number) => number): AsyncGenerator<Buffer> {
  const { table } = edit.content;
  const head = Buffer.alloc(table.headerSize + 8);
  if (table.headerSize === 16) {
    head.writeUInt32BE(1, 0);
    head.writeBigUInt64BE(BigInt(edit.inserted), 8);
  } else {
    head.writeUInt32BE(edit.inserted, 0);
  }
  head.write('co64', 4, 'latin1');
  (await file.exact(table.offset + table.headerSize, 8)).copy(head, table.headerSize);
  yield head;
  for await (const values of fieldValues(file, table.entries)) {
    const out = Buffer.allocUnsafe(8 * values.length);
    values.forEach((v, i) => out.writeBigUInt64BE(BigInt(moved(v)), 8 * i));
    yield out;
  }
}

/** The output's bytes in order, each chunk a buffer of its own. */
async function* outputChunks(source: FileHandle, file: BmffFileReader, layout: BmffLayout, chunkBytes: number): AsyncGenerator<Buffer> {
  const patches: Patch[] = [
    ...layout.fields.map((f) => ({ ...f, change: layout.moved })),
    ...layout.sizeFields.map((s: SizeField) => ({ at: s.at, count: 1, stride: s.width, width: s.width, box: 'size', change: (v: number) => v + s.add })),
  ].sort((a, b) => a.at - b.at);
  let from = 0;
  let position = 0;
  // The one consumer (writeBmffBody) asks for the next chunk while this one is hashed and the one before is written.
  // A chunk is longer than chunkBytes only when it is one field (8 bytes at most) that it would otherwise split.
  const buffer = bufferRing(Math.max(chunkBytes, 8));
  const copyTo = async function* (end: number): AsyncGenerator<Buffer> {
    while (position < end) {
      while (from < patches.length && runEnd(patches[from]!) <= position) from += 1;
      const stop = chunkEnd(patches, from, position, Math.min(end, position + chunkBytes));
      const chunk = await readExactly(source, stop - position, position, buffer());
      patchChunk(chunk, position, patches, from);
      position = stop;
      yield chunk;
    }
  };
  for (const edit of layout.edits) {
    yield* copyTo(edit.at);
    if (edit.content.kind === 'room') yield freeBox(edit.inserted);
    else yield* co64Of(file, edit as Edit & { content: { kind: 'co64' } }, layout.moved);
    position = edit.at + edit.removed;
  }
  yield* copyTo(layout.sourceSize);
}

/**
 * Writes the output to a new file at `outputPath` (removed again on failure), handing every chunk to `onBytes` as it
 * goes (a chunk is valid only during that call). `source` and `file` read the same source; `chunkBytes`: how much of
 * it is read at a time.
 */
export async function writeBmffBody(source: FileHandle, file: BmffFileReader, layout: BmffLayout, outputPath: string, onBytes: (chunk: Buffer) => void, chunkBytes = COPY_CHUNK_BYTES): Promise<void> {
  await writeChunksToNewFile(outputPath, outputChunks(source, file, layout, chunkBytes), (chunk) => chunk, onBytes, layout.outputSize);
}

/** The C2PA box header c2pa-rs writes (bmff_io.rs write_c2pa_box): size, `uuid`, the C2PA UUID, version and flags, "manifest\0", a zero offset. */
const C2PA_BOX_HEADER_BYTES = 8 + 16 + 4 + 9 + 8;

/** The C2PA box carrying `store`, followed by a `free` box filling the rest of the room (none when it fits exactly). */
export function manifestRoomBytes(store: Uint8Array, roomSize: number): Buffer {
  const boxSize = C2PA_BOX_HEADER_BYTES + store.byteLength;
  const rest = roomSize - boxSize;
  if (rest < 0 || (rest > 0 && rest < 8)) throw new RangeError(`a manifest box of ${boxSize} bytes does not fill a room of ${roomSize}`);
  const header = Buffer.alloc(C2PA_BOX_HEADER_BYTES);
  header.writeUInt32BE(boxSize, 0);
  header.write('uuid', 4, 'latin1');
  C2PA_UUID.copy(header, 8);
  header.write('manifest\0', 28, 'latin1');
  return Buffer.concat([header, store, rest ? freeBox(rest) : Buffer.alloc(0)]);
}

/** Room to reserve for a manifest store of `storeBytes`: its box and at least a `free` box's header. */
export function roomFor(storeBytes: number, slack: number): number {
  return C2PA_BOX_HEADER_BYTES + storeBytes + Math.max(8, slack);
}

/** Writes `bytes` (exactly the room's size) into the room of the written file. */
export async function writeRoom(outputPath: string, room: { offset: number; size: number }, bytes: Buffer): Promise<void> {
  if (bytes.length !== room.size) throw new RangeError(`${bytes.length} bytes do not fill a room of ${room.size}`);
  const output = await open(outputPath, 'r+');
  try {
    await writeFully(output, bytes, room.offset);
  } finally {
    await output.close();
  }
}

/** Writes the manifest into its room in the written file. */
export async function writeManifestRoom(outputPath: string, room: { offset: number; size: number }, store: Uint8Array): Promise<void> {
  await writeRoom(outputPath, room, manifestRoomBytes(store, room.size));
}
