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

export const wav = defineFormat({
  mimeType: 'audio/wav',
  extensions: ['wav', 'wave'],
  kind: 'audio',
  label: 'WAV audio',
  notes: 'RIFF chunk walk, RIFF size matches the file, "fmt " before "data"',
  *sniff(head) {
    return riffForm(head) === 'WAVE';
  },
  check: (size) => checkRiff(size, { name: 'WAV', requiredChunks: formatThenData }),
  durationSeconds: seconds,
});
