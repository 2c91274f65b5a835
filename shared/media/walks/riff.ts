import { isFourCC, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

/** The form type of a RIFF file (the four characters at byte 8); undefined when the file is not RIFF. */
export function riffForm(head: Buffer): string | undefined {
  if (head.toString('latin1', 0, 4) !== 'RIFF') return undefined;
  if (head.length < 12) throw corrupt('the RIFF file is truncated');
  return head.toString('latin1', 8, 12);
}

/** RIFF of a form no format of the registry claims (asked only then). */
export function* riffOfOtherForm(head: Buffer): Walk<string | undefined> {
  const form = riffForm(head);
  return form === undefined ? undefined : `RIFF files of form "${form.trim()}" are not supported`;
}

export interface Chunk {
  id: string;
  /** Offset of the chunk's data. */
  data: number;
  size: number;
  /** For LIST and RIFF chunks, the list type. */
  listType?: string;
}

/**
 * The chunks between `start` and `end`: ids of four printable characters, sizes within `end`, data padded to an
 * even length (the last chunk's pad byte may be missing, as some writers leave it out).
 */
export function* chunksIn(start: number, end: number, what: string): Walk<Chunk[]> {
  const chunks: Chunk[] = [];
  let pos = start;
  while (pos < end) {
    if (end - pos < 8) throw corrupt(`${what} has a truncated chunk header at byte ${pos}`);
    const header = yield* readExactly(pos, 8, what);
    const id = header.toString('latin1', 0, 4);
    const size = header.readUInt32LE(4);
    if (!isFourCC(id)) throw corrupt(`${what} has a damaged chunk at byte ${pos}`);
    if (pos + 8 + size > end) throw corrupt(`${what} is truncated: chunk "${id.trim()}" at byte ${pos} claims ${size} bytes, only ${end - pos - 8} follow`);
    const chunk: Chunk = { id, data: pos + 8, size };
    if ((id === 'LIST' || id === 'RIFF') && size >= 4) chunk.listType = (yield* readExactly(pos + 8, 4, what)).toString('latin1');
    chunks.push(chunk);
    pos += 8 + size + (size & 1);
    if (pos === end + 1 && size & 1) break; // last chunk without its pad byte
  }
  return chunks;
}

/** What a RIFF form checks beyond the chunk walk. */
interface RiffFormCheck {
  /** The format's name in messages ("the WAV file ..."). */
  readonly name: string;
  /** The form of further RIFF chunks that may follow the first (OpenDML AVI files over 1 GB: "AVIX"). */
  readonly continuation?: string;
  /** The form's own required chunks, given the top-level chunks. */
  requiredChunks(chunks: Chunk[], what: string): Walk<void>;
}

/**
 * RIFF: the RIFF size matches the file (one missing pad byte allowed; a form with a continuation may go on with
 * further RIFF chunks of that form), every chunk is in bounds, and the form's own required chunks are there.
 */
export function* checkRiff(size: number, form: RiffFormCheck): Walk<void> {
  const what = `the ${form.name} file`;
  const head = yield* readExactly(0, 12, what);
  const riffEnd = 8 + head.readUInt32LE(4);
  if (riffEnd < 12) throw corrupt(`${what} has a damaged RIFF header`);
  if (riffEnd > size + 1) throw corrupt(`${what} is truncated: its RIFF header claims ${riffEnd} bytes, the file has ${size}`);
  const end = Math.min(riffEnd, size);
  const chunks = yield* chunksIn(12, end, what);
  if (riffEnd < size - (riffEnd & 1)) {
    if (!form.continuation) throw corrupt(`${what} has ${size - riffEnd} bytes after the end of its RIFF chunk`);
    const more = yield* chunksIn(riffEnd + (riffEnd & 1), size, what);
    if (more.some((c) => c.id !== 'RIFF' || c.listType !== form.continuation)) throw corrupt(`${what} has data after the end of its RIFF chunk`);
  }
  yield* form.requiredChunks(chunks, what);
}
