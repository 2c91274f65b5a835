import { MAX_SMALL_BOX_BYTES } from './bmff-c2pa-boxes.js';
import type { BmffFileReader } from './bmff-walk.js';
import { AudioUnsignableError, type ManifestSpot } from './data-hash-spot.js';
import { planOf } from './data-hash-write.js';

/**
 * An MP3 or FLAC file's manifest as c2pa-rs 0.91 writes it (id3_helper.rs, shared by mp3_io.rs and FLAC): the file
 * starts with an ID3v2.4 tag holding the source tag's frames, in order, without any C2PA GEOB frame, then a GEOB frame
 * (UTF-8, MIME type "application/c2pa", file name "c2pa", description "c2pa manifest store") whose object is the
 * store, and no padding; the audio after the source's tag follows unchanged (a FLAC without a tag gets one in front of
 * its "fLaC"). The data hash excludes the store's bytes only: the tag's header and the frame's are hashed.
 *
 * c2pa-rs re-encodes the source's frames with the id3 crate; here they are kept as they are (an ID3v2.3 frame gets a
 * v2.4 header: the same ID, flags moved to their v2.4 places, a syncsafe size), which every ID3 reader, c2pa-rs among
 * them, reads the same. Tags this does not rewrite (ID3v2.2, unsynchronised, with an extended header or a footer,
 * compressed or encrypted v2.3 frames) are refused with the reason.
 */

/** The C2PA GEOB frame's MIME types (the current one, and the one c2pa-rs still reads). */
const C2PA_MIME_TYPES = new Set(['application/c2pa', 'application/x-c2pa-manifest-store']);

/** The GEOB frame's fields before the object, as c2pa-rs writes them: UTF-8, the MIME type, file name and description, each NUL-terminated. */
const GEOB_FIELDS = Buffer.from('\x03application/c2pa\0c2pa\0c2pa manifest store\0', 'latin1');

/** A syncsafe integer holds 28 bits: the largest tag or frame. */
const MAX_SYNCSAFE = 2 ** 28 - 1;

/** Bytes of the audio after the tag shown to c2pa-rs in a stand-in (the first frames, FLAC's metadata blocks). */
const STAND_IN_AUDIO_BYTES = 64 * 1024;

interface Frame {
  /** The frame as it goes into a v2.4 tag. */
  bytes: Buffer;
  /** Where its object starts in `bytes`, when it is a C2PA GEOB frame. */
  storeAt?: number;
}

function syncsafe(value: number): Buffer {
  if (value > MAX_SYNCSAFE) throw new AudioUnsignableError(`its ID3 tag would be ${value} bytes, over the ${MAX_SYNCSAFE} an ID3v2 tag can hold`);
  return Buffer.from([(value >> 21) & 0x7f, (value >> 14) & 0x7f, (value >> 7) & 0x7f, value & 0x7f]);
}

const readSyncsafe = (b: Buffer, at: number) => ((b[at]! & 0x7f) << 21) | ((b[at + 1]! & 0x7f) << 14) | ((b[at + 2]! & 0x7f) << 7) | (b[at + 3]! & 0x7f);

/** The length of a NUL-terminated string in `encoding` (ID3's 0-3) at `at`, its terminator included; -1 without one. */
function terminated(b: Buffer, at: number, encoding: number): number {
  const wide = encoding === 1 || encoding === 2;
  for (let i = at; i + (wide ? 1 : 0) < b.length; i += wide ? 2 : 1) {
    if (b[i] === 0 && (!wide || b[i + 1] === 0)) return i - at + (wide ? 2 : 1);
  }
  return -1;
}

/** Where a GEOB frame's object starts in its content, when the frame is a C2PA one; undefined otherwise. */
function c2paObjectAt(content: Buffer): number | undefined {
  const encoding = content[0];
  if (encoding === undefined) return undefined;
  const mimeEnd = content.indexOf(0, 1);
  if (mimeEnd < 0 || !C2PA_MIME_TYPES.has(content.toString('latin1', 1, mimeEnd))) return undefined;
  const name = terminated(content, mimeEnd + 1, encoding);
  const description = name < 0 ? -1 : terminated(content, mimeEnd + 1 + name, encoding);
  if (description < 0) throw new AudioUnsignableError('its C2PA GEOB frame is damaged');
  return mimeEnd + 1 + name + description;
}

/** The frames of the tag `tag` (header included), as they go into a v2.4 tag. */
function framesOf(tag: Buffer): Frame[] {
  const major = tag[3]!;
  const flags = tag[5]!;
  if (major === 2) throw new AudioUnsignableError('its ID3 tag is ID3v2.2, which this service does not rewrite');
  if (major > 4) throw new AudioUnsignableError(`its ID3 tag is of an unknown version (2.${major})`);
  if (flags & 0x80) throw new AudioUnsignableError('its ID3 tag is unsynchronised, which this service does not rewrite');
  if (flags & 0x40) throw new AudioUnsignableError('its ID3 tag has an extended header, which this service does not rewrite');
  if (flags & 0x10) throw new AudioUnsignableError('its ID3 tag has a footer, which this service does not rewrite');
  const frames: Frame[] = [];
  for (let at = 10; at + 10 <= tag.length && tag[at] !== 0; ) {
    const id = tag.toString('latin1', at, at + 4);
    if (!/^[A-Z0-9]{4}$/.test(id)) throw new AudioUnsignableError(`its ID3 tag has a damaged frame at byte ${at}`);
    const size = major === 4 ? readSyncsafe(tag, at + 4) : tag.readUInt32BE(at + 4);
    if (at + 10 + size > tag.length) throw new AudioUnsignableError(`its ID3 frame ${id} runs past the end of the tag`);
    const content = tag.subarray(at + 10, at + 10 + size);
    let header = tag.subarray(at, at + 10);
    if (major === 3) {
      // v2.3 flags %abc00000 %ijk00000: a, b and c move one bit right in v2.4; compression, encryption and grouping change their frame's layout.
      if (tag[at + 9]! & 0xe0) throw new AudioUnsignableError(`its ID3v2.3 frame ${id} is compressed, encrypted or grouped, which this service does not rewrite`);
      header = Buffer.concat([Buffer.from(id, 'latin1'), syncsafe(size), Buffer.from([(tag[at + 8]! >> 1) & 0x70, 0])]);
    }
    const objectAt = id === 'GEOB' ? c2paObjectAt(content) : undefined;
    frames.push({ bytes: Buffer.concat([header, content]), storeAt: objectAt === undefined ? undefined : 10 + objectAt });
    at += 10 + size;
  }
  return frames;
}

/** A v2.4 tag of these frames. */
function tagOf(frames: readonly Buffer[]): Buffer {
  const size = frames.reduce((n, f) => n + f.length, 0);
  return Buffer.concat([Buffer.from('ID3\x04\x00\x00', 'latin1'), syncsafe(size), ...frames]);
}

/** The C2PA GEOB frame's header and fields, for an object of `storeBytes`. */
function geobHead(storeBytes: number): Buffer {
  return Buffer.concat([Buffer.from('GEOB', 'latin1'), syncsafe(GEOB_FIELDS.length + storeBytes), Buffer.alloc(2), GEOB_FIELDS]);
}

/** The manifest spot of an MP3 or FLAC file (c2pa-rs reads the first ID3v2 tag only). */
export async function id3Spot(file: BmffFileReader): Promise<ManifestSpot> {
  const head = await file.some(0, 10);
  let frames: Frame[] = [];
  let audioStart = 0;
  if (head.length === 10 && head.toString('latin1', 0, 3) === 'ID3') {
    const size = readSyncsafe(head, 6);
    if (size > MAX_SMALL_BOX_BYTES) throw new AudioUnsignableError(`its ID3 tag is ${size} bytes, over the ${MAX_SMALL_BOX_BYTES} this service reads`);
    frames = framesOf(await file.exact(0, 10 + size));
    audioStart = 10 + size;
  }
  const manifests = frames.filter((f) => f.storeAt !== undefined);
  const kept = frames.filter((f) => f.storeAt === undefined).map((f) => f.bytes);
  const keptBytes = kept.reduce((n, f) => n + f.length, 0);
  return {
    async store() {
      if (manifests.length > 1) throw new AudioUnsignableError('its ID3 tag has more than one C2PA manifest store');
      const [frame] = manifests;
      return frame && new Uint8Array(frame.bytes.subarray(frame.storeAt));
    },
    async standIn({ manifest }) {
      const audio = await file.some(audioStart, STAND_IN_AUDIO_BYTES);
      return new Uint8Array(Buffer.concat([tagOf(manifest ? frames.map((f) => f.bytes) : kept), audio]));
    },
    plan(storeBytes) {
      const geob = geobHead(storeBytes);
      const tagHead = tagOf([...kept, geob]).subarray(0, 10);
      // The tag's size counts the store, which comes after the bytes made here.
      tagHead.set(syncsafe(keptBytes + geob.length + storeBytes), 6);
      const start = 10 + keptBytes + geob.length;
      const plan = planOf([{ bytes: Buffer.concat([tagHead, ...kept, geob]) }, { room: storeBytes }, { from: audioStart, to: file.size }]);
      return { plan, exclusion: { start, length: storeBytes } };
    },
    roomBytes: (store) => Buffer.from(store),
  };
}
