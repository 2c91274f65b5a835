import { open } from 'node:fs/promises';
import { formatFor } from '../media/formats.js';
import { BmffFileReader, BmffMalformed } from './bmff-walk.js';
import { AudioUnsignableError, type ManifestSpot } from './data-hash-spot.js';
import { id3Spot } from './id3-manifest.js';
import type { SignableMimeType } from './media-type.js';
import { riffSpot } from './riff-manifest.js';

/** The formats signed with a data hash streamed, by their registry's `streamed`: how each one's manifest spot is read. */
const SPOTS: Record<string, (file: BmffFileReader) => Promise<ManifestSpot>> = { riff: riffSpot, id3: id3Spot };

/**
 * Opens a WAV, MP3 or FLAC file, reads its manifest spot (data-hash-spot.ts) and hands it to `use`. A file whose
 * structure ends early is AudioUnsignableError.
 */
export async function withManifestSpot<T>(filePath: string, mimeType: SignableMimeType, use: (spot: ManifestSpot) => Promise<T>): Promise<T> {
  const spotOf = SPOTS[formatFor(mimeType)?.streamed ?? ''];
  if (!spotOf) throw new RangeError(`${mimeType} is not signed with a streamed data hash`);
  const handle = await open(filePath, 'r');
  try {
    const file = new BmffFileReader(handle, (await handle.stat()).size);
    try {
      return await use(await spotOf(file));
    } catch (err) {
      if (err instanceof BmffMalformed) throw new AudioUnsignableError(`its structure ends early (${err.message})`, { cause: err });
      throw err;
    }
  } finally {
    await handle.close();
  }
}
