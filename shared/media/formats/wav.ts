import { readExactly, type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';
import { defineFormat } from '../format-descriptor.js';
import { checkRiff, chunksIn, riffForm, type Chunk } from '../walks/riff.js';

/** "fmt " (16+ bytes) before "data". */
function* formatThenData(chunks: Chunk[], what: string): Walk<void> {
  const fmt = chunks.findIndex((c) => c.id === 'fmt ');
  const data = chunks.findIndex((c) => c.id === 'data');
  if (fmt < 0) throw corrupt(`${what} has no "fmt " chunk`);
  if (chunks[fmt]!.size < 16) throw corrupt(`${what} has a damaged "fmt " chunk`);
  if (data < 0) throw corrupt(`${what} has no "data" chunk`);
  if (data < fmt) throw corrupt(`${what} has its "data" chunk before "fmt "`);
}

/** The data size over the byte rate of the "fmt " chunk. */
function* seconds(size: number): Walk<number | undefined> {
  const chunks = yield* chunksIn(12, size, 'the WAV file');
  const fmt = chunks.find((c) => c.id === 'fmt ');
  const data = chunks.find((c) => c.id === 'data');
  if (!fmt || !data || fmt.size < 16) return undefined;
  const byteRate = (yield* readExactly(fmt.data + 8, 4, 'the fmt chunk')).readUInt32LE(0);
  return byteRate > 0 ? data.size / byteRate : undefined;
}

/**
 * A RIFF file's header counts its size in 32 bits: a WAV holds at most 4 GiB, and once signed its manifest chunk
 * counts too (a file that leaves it no room is refused at signing, shared/c2pa/riff-manifest.ts).
 */
const WAV_MAX_BYTES = 4 * 1024 * 1024 * 1024;

export const wav = defineFormat({
  mimeType: 'audio/wav',
  extensions: ['wav', 'wave'],
  streamed: 'riff',
  kind: 'audio',
  label: 'WAV audio',
  notes: 'RIFF chunk walk, RIFF size matches the file, "fmt " before "data"; at most 4 GiB (RIFF sizes are 32-bit; RF64 is refused)',
  maxBytes: WAV_MAX_BYTES,
  *sniff(head) {
    return riffForm(head) === 'WAVE';
  },
  /** RF64 (EBU Tech 3306, a WAV past 4 GiB): c2pa-rs 0.91 neither reads nor signs it, so neither does the service. */
  *refuse(head) {
    return head.toString('latin1', 0, 4) === 'RF64' ? 'RF64 WAV files (a WAV past 4 GiB) are not supported: C2PA (c2pa-rs) reads and signs RIFF WAV only, which holds at most 4 GiB' : undefined;
  },
  check: (size) => checkRiff(size, { name: 'WAV', requiredChunks: formatThenData }),
  durationSeconds: seconds,
});
