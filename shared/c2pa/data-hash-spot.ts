import { ServiceError } from '../errors.js';
import type { DataHashPlan } from './data-hash-write.js';

/**
 * Where a WAV, MP3 or FLAC file carries its manifest, as c2pa-rs 0.91 embeds and reads it, for files of any size:
 * only headers, tags and the manifest itself are read, never the audio. c2pa-rs binds these formats with a
 * c2pa.hash.data whose one exclusion is the manifest (riff_io.rs: the RIFF `C2PA` chunk, its header included;
 * id3_helper.rs, which MP3 and FLAC share: the store inside the ID3v2 tag's GEOB frame).
 */

/** The file cannot be signed streamed the way c2pa-rs would sign it; the reason is for the file's owner. Final. */
export class AudioUnsignableError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unprocessable', 'audio_unsignable', message, { ...options, publicMessage: `the file could not be signed: ${message}` });
    this.name = 'AudioUnsignableError';
  }
}

/** The one exclusion of the data hash: the manifest's bytes in the output. */
export interface Exclusion {
  start: number;
  length: number;
}

/** A file's manifest spot: what c2pa-rs reads of it, and how the signed file is laid out around a store of a size. */
export interface ManifestSpot {
  /** The manifest store the file carries (JUMBF), read out of it; undefined without one. */
  store(): Promise<Uint8Array | undefined>;
  /**
   * What c2pa-rs is shown in place of the file: the same format, with every part it reads (headers, the tag or the
   * XMP chunk) and little or no audio; with `manifest`, the file's manifest too.
   */
  standIn(options: { manifest: boolean }): Promise<Uint8Array>;
  /** The signed file's layout for a store of `storeBytes`, and the data hash's exclusion in it. */
  plan(storeBytes: number): { plan: DataHashPlan; exclusion: Exclusion };
  /** What goes into the plan's room: the store (with its chunk header in a RIFF file). */
  roomBytes(store: Uint8Array): Buffer;
}
