import { type Walk } from '../byte-walk.js';
import { corrupt } from '../errors.js';
import { defineFormat } from '../format-descriptor.js';
import { checkRiff, chunksIn, riffForm, type Chunk } from '../walks/riff.js';

/** LIST "hdrl" first, starting with "avih", and a LIST "movi". */
function* headerAndMovie(chunks: Chunk[], what: string): Walk<void> {
  const hdrl = chunks[0];
  if (!hdrl || hdrl.id !== 'LIST' || hdrl.listType !== 'hdrl') throw corrupt(`${what} does not start with its header list (LIST hdrl)`);
  const headers = yield* chunksIn(hdrl.data + 4, hdrl.data + hdrl.size, what);
  if (headers[0]?.id !== 'avih') throw corrupt(`${what} has no main AVI header (avih)`);
  if (!chunks.some((c) => c.id === 'LIST' && c.listType === 'movi')) throw corrupt(`${what} has no movie data (LIST movi)`);
}

/**
 * c2pa-wasm signs an AVI whole, holding it several times over in its 4 GiB of WASM memory: beyond this it cannot
 * (MAX_WASM_SIGN_BYTES, shared/c2pa/sign-asset.ts), so a larger file is refused at upload rather than at signing.
 */
const AVI_MAX_BYTES = 600 * 1024 * 1024;

export const avi = defineFormat({
  mimeType: 'video/x-msvideo',
  extensions: ['avi'],
  kind: 'video',
  label: 'AVI video',
  notes: 'RIFF chunk walk, RIFF size matches the file (OpenDML AVIX chunks allowed), LIST hdrl with avih first, LIST movi; at most 600 MiB (c2pa-wasm signs it whole)',
  maxBytes: AVI_MAX_BYTES,
  *sniff(head) {
    return riffForm(head) === 'AVI ';
  },
  check: (size) => checkRiff(size, { name: 'AVI', continuation: 'AVIX', requiredChunks: headerAndMovie }),
});
