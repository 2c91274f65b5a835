import { MAX_SMALL_BOX_BYTES } from './bmff-c2pa-boxes.js';
import type { BmffFileReader } from './bmff-walk.js';
import { AudioUnsignableError, type ManifestSpot } from './data-hash-spot.js';
import { planOf, type Piece } from './data-hash-write.js';

/**
 * A WAV file's manifest as c2pa-rs 0.91 writes it (riff_io.rs): a top-level `C2PA` chunk holding the store, appended
 * after every other chunk of the RIFF chunk (an existing one removed), the RIFF size grown to match; the data hash
 * excludes the chunk, its 8-byte header included, and nothing else (not its pad byte, nor the RIFF size). Bytes after
 * the RIFF chunk are dropped, as c2pa-rs drops them.
 *
 * RIFF sizes are 32-bit: a signed WAV holds at most 4 GiB (RIFF_MAX_BYTES). RF64 (Broadcast Wave past 4 GiB) is not
 * a form c2pa-rs reads or writes: it is refused at upload (shared/media/formats/wav.ts).
 */

/** The largest RIFF file: its header's 32-bit size counts everything after its first 8 bytes. */
export const RIFF_MAX_BYTES = 8 + 0xffffffff;

/** More top-level chunks than any WAV has; beyond, the file is refused rather than listed. */
const MAX_CHUNKS = 100_000;

const C2PA_ID = 'C2PA';

interface Chunk {
  id: string;
  offset: number;
  /** The data's size, as its header says. */
  size: number;
  /** Header, data and pad byte (none for a last odd chunk the file ends on). */
  total: number;
}

/** The chunk's whole bytes (header and data), at most MAX_SMALL_BOX_BYTES. */
async function chunkBytes(file: BmffFileReader, chunk: Chunk): Promise<Buffer> {
  if (chunk.size > MAX_SMALL_BOX_BYTES) throw new AudioUnsignableError(`its "${chunk.id}" chunk is ${chunk.size} bytes, over the ${MAX_SMALL_BOX_BYTES} this service reads`);
  return file.exact(chunk.offset, 8 + chunk.size);
}

/** The top-level chunks of the RIFF chunk, as c2pa-rs's riff crate iterates them. */
async function topLevelChunks(file: BmffFileReader): Promise<{ form: string; chunks: Chunk[] }> {
  const head = await file.exact(0, 12);
  const magic = head.toString('latin1', 0, 4);
  if (magic === 'RF64') throw new AudioUnsignableError('it is an RF64 file (a WAV past 4 GiB), which C2PA tools do not read or write');
  if (magic !== 'RIFF') throw new AudioUnsignableError('it does not start with a RIFF header');
  const end = Math.min(file.size, 8 + head.readUInt32LE(4));
  const chunks: Chunk[] = [];
  for (let at = 12; at + 8 <= end; ) {
    if (chunks.length === MAX_CHUNKS) throw new AudioUnsignableError(`it has more than ${MAX_CHUNKS} RIFF chunks`);
    const header = await file.exact(at, 8);
    const size = header.readUInt32LE(4);
    if (at + 8 + size > end) throw new AudioUnsignableError(`its "${header.toString('latin1', 0, 4)}" chunk runs past the end of the RIFF chunk`);
    const total = Math.min(8 + size + (size & 1), end - at);
    chunks.push({ id: header.toString('latin1', 0, 4), offset: at, size, total });
    at += total;
  }
  return { form: head.toString('latin1', 8, 12), chunks };
}

/** The RIFF header of a file whose RIFF chunk holds `bodyBytes` after its form type. */
function riffHeader(form: string, bodyBytes: number): Buffer {
  const size = 4 + bodyBytes;
  if (8 + size > RIFF_MAX_BYTES) throw new AudioUnsignableError(`signed, it would be ${8 + size} bytes, over the ${RIFF_MAX_BYTES} a RIFF file can hold`);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(size, 4);
  header.write(form, 8, 'latin1');
  return header;
}

/** The chunks as copies of the source, runs of adjacent ones merged. */
function copiesOf(chunks: readonly Chunk[]): Piece[] {
  const pieces: { from: number; to: number }[] = [];
  for (const c of chunks) {
    const last = pieces.at(-1);
    if (last && last.to === c.offset) last.to = c.offset + c.total;
    else pieces.push({ from: c.offset, to: c.offset + c.total });
  }
  return pieces;
}

/** A `C2PA` chunk around `store` (its pad byte, when the store is odd, is written after the room). */
function c2paChunk(store: Uint8Array): Buffer {
  const header = Buffer.alloc(8);
  header.write(C2PA_ID, 0, 'latin1');
  header.writeUInt32LE(store.byteLength, 4);
  return Buffer.concat([header, store]);
}

/** The manifest spot of a WAV file (a RIFF file of any form). */
export async function riffSpot(file: BmffFileReader): Promise<ManifestSpot> {
  const { form, chunks } = await topLevelChunks(file);
  const manifest = chunks.find((c) => c.id === C2PA_ID);
  const kept = chunks.filter((c) => c.id !== C2PA_ID);
  const keptBytes = kept.reduce((n, c) => n + c.total, 0);
  return {
    store: async () => (manifest ? new Uint8Array((await chunkBytes(file, manifest)).subarray(8)) : undefined),
    // The chunks c2pa-rs reads (the format, XMP), with the manifest when asked, and no audio.
    async standIn({ manifest: withManifest }) {
      const shown = chunks.filter((c) => c.id === 'fmt ' || c.id === 'XMP ' || (withManifest && c === manifest));
      const parts = [];
      for (const c of shown) parts.push(await chunkBytes(file, c), Buffer.alloc(c.size & 1));
      const body = Buffer.concat(parts);
      return new Uint8Array(Buffer.concat([riffHeader(form, body.length), body]));
    },
    plan(storeBytes) {
      const pad = storeBytes & 1;
      const start = 12 + keptBytes;
      const pieces: Piece[] = [{ bytes: riffHeader(form, keptBytes + 8 + storeBytes + pad) }, ...copiesOf(kept), { room: 8 + storeBytes }];
      if (pad) pieces.push({ bytes: Buffer.alloc(1) });
      return { plan: planOf(pieces), exclusion: { start, length: 8 + storeBytes } };
    },
    roomBytes: c2paChunk,
  };
}
