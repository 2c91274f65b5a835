import { isFourCC, readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';

/** The RIFF forms this service signs (the form type at byte 8). */
export const RIFF_FORMS = { WEBP: 'WebP', WAVE: 'WAV', 'AVI ': 'AVI' } as const;
export type RiffForm = keyof typeof RIFF_FORMS;

interface Chunk {
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

/**
 * RIFF: the RIFF size matches the file (one missing pad byte allowed; AVI may continue with OpenDML "AVIX" RIFF
 * chunks), every chunk is in bounds, and the form's own required chunks are there:
 * WebP: VP8 / VP8L / VP8X first, with a valid frame signature; WAV: "fmt " (16+ bytes) before "data";
 * AVI: LIST "hdrl" first, starting with "avih", and a LIST "movi".
 */
export function* checkRiff(size: number, form: RiffForm): Walk<void> {
  const what = `the ${RIFF_FORMS[form]} file`;
  const head = yield* readExactly(0, 12, what);
  const riffEnd = 8 + head.readUInt32LE(4);
  if (riffEnd < 12) throw corrupt(`${what} has a damaged RIFF header`);
  if (riffEnd > size + 1) throw corrupt(`${what} is truncated: its RIFF header claims ${riffEnd} bytes, the file has ${size}`);
  const end = Math.min(riffEnd, size);
  const chunks = yield* chunksIn(12, end, what);
  if (riffEnd < size - (riffEnd & 1)) {
    if (form !== 'AVI ') throw corrupt(`${what} has ${size - riffEnd} bytes after the end of its RIFF chunk`);
    // OpenDML (AVI files over 1 GB): more RIFF chunks of form AVIX follow the first.
    const more = yield* chunksIn(riffEnd + (riffEnd & 1), size, what);
    if (more.some((c) => c.id !== 'RIFF' || c.listType !== 'AVIX')) throw corrupt(`${what} has data after the end of its RIFF chunk`);
  }
  if (form === 'WEBP') yield* checkWebp(chunks, what);
  else if (form === 'WAVE') checkWav(chunks, what);
  else yield* checkAvi(chunks, what);
}

function* checkWebp(chunks: Chunk[], what: string): Walk<void> {
  const first = chunks[0];
  if (!first) throw corrupt(`${what} has no image chunk`);
  const image = first.id === 'VP8X' ? chunks.find((c) => c.id === 'VP8 ' || c.id === 'VP8L' || c.id === 'ANMF') : first;
  if (first.id === 'VP8X' && first.size < 10) throw corrupt(`${what} has a damaged VP8X chunk`);
  if (!image || !['VP8 ', 'VP8L', 'ANMF'].includes(image.id)) throw corrupt(`${what} has no VP8 or VP8L image chunk`);
  if (image.id === 'VP8 ') {
    const frame = yield* readExactly(image.data, 10, what);
    if (image.size < 10 || frame[3] !== 0x9d || frame[4] !== 0x01 || frame[5] !== 0x2a) throw corrupt(`${what} has a damaged VP8 frame header`);
    if ((frame.readUInt16LE(6) & 0x3fff) === 0 || (frame.readUInt16LE(8) & 0x3fff) === 0) throw corrupt(`${what} has zero width or height`);
  } else if (image.id === 'VP8L') {
    const sig = yield* readExactly(image.data, 1, what);
    if (image.size < 5 || sig[0] !== 0x2f) throw corrupt(`${what} has a damaged VP8L header`);
  }
}

function checkWav(chunks: Chunk[], what: string): void {
  const fmt = chunks.findIndex((c) => c.id === 'fmt ');
  const data = chunks.findIndex((c) => c.id === 'data');
  if (fmt < 0) throw corrupt(`${what} has no "fmt " chunk`);
  if (chunks[fmt]!.size < 16) throw corrupt(`${what} has a damaged "fmt " chunk`);
  if (data < 0) throw corrupt(`${what} has no "data" chunk`);
  if (data < fmt) throw corrupt(`${what} has its "data" chunk before "fmt "`);
}

function* checkAvi(chunks: Chunk[], what: string): Walk<void> {
  const hdrl = chunks[0];
  if (!hdrl || hdrl.id !== 'LIST' || hdrl.listType !== 'hdrl') throw corrupt(`${what} does not start with its header list (LIST hdrl)`);
  const headers = yield* chunksIn(hdrl.data + 4, hdrl.data + hdrl.size, what);
  if (headers[0]?.id !== 'avih') throw corrupt(`${what} has no main AVI header (avih)`);
  if (!chunks.some((c) => c.id === 'LIST' && c.listType === 'movi')) throw corrupt(`${what} has no movie data (LIST movi)`);
}
