import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import type { WasmBuilder as Builder } from '@contentauth/c2pa-wasm';
import { identifyMedia, MediaRejectedError } from '../media/formats.js';
import type { VaultKey } from '../vault/types.js';
import type { Timestamper } from '../tsa/client.js';
import { coseSigner } from './cose-sign1.js';
import { C2paError, describeWasmError } from './errors.js';
import { opensParentIngredient, PARENT_INGREDIENT_ID, type ManifestDefinition } from './manifest-definition.js';
import { assertSignableMedia, isSignableMimeType, MediaTypeMismatchError, UnsupportedMediaTypeError, type SignableMimeType } from './media-type.js';
import { activeManifestTitle, hasManifest, sourceHasManifest } from './read-asset.js';
import { signingSettings } from './settings.js';
import { claimThumbnailOf, type ThumbnailSource } from './thumbnail.js';
import { BytesBlob, c2paWasm, FileBlob } from './wasm.js';

/** What signing needs besides the source: the same for a file in memory (signAsset) and one on disk (signFile). */
export interface SignOptions {
  mimeType: SignableMimeType;
  /** From buildManifestDefinition; built with sourceHasManifest matching the source. */
  manifest: ManifestDefinition;
  key: VaultKey;
  /** Leaf certificate first, then the sub-CA (no root). The leaf must certify `key`. */
  chainDer: Uint8Array[];
  timestamper?: Timestamper;
  /**
   * Anchors to judge an existing manifest by when the source becomes the parent ingredient. c2pa-rs records
   * that judgement in the ingredient; without anchors every parent is recorded as signingCredential.untrusted.
   */
  trustAnchorsPem?: string | readonly string[];
  /**
   * Called when the definition asks for a claim thumbnail that cannot be made (an image too large or one the
   * decoder refuses, a video without ffmpeg or without a frame it can decode, audio): the file is then signed
   * without one, as c2pa-rs does by default (thumbnail ignore_errors).
   */
  onThumbnailError?: (err: unknown) => void;
  /** ffmpeg, which takes the frame a video's claim thumbnail is made of (signFile only); without it video gets none. */
  ffmpegPath?: string;
  /**
   * Whether c2pa-rs reads the signed file back and validates it before returning it (its verify_after_sign; default
   * true). That second pass hashes the whole file again, and costs about as much CPU as signing it. Without it,
   * what signing checks itself still holds: the leaf certificate belongs to the vault key (coseSigner), the
   * signature verifies against it and the timestamp token answers the imprint (buildCoseSign1).
   */
  verifyAfterSign?: boolean;
  /**
   * The claim thumbnail (JPEG), already made by the caller (e.g. of the pixels its fingerprint decoded); used when
   * the definition asks for one, instead of decoding the source again.
   */
  thumbnail?: Uint8Array;
}

export interface SignAssetInput extends SignOptions {
  bytes: Uint8Array;
}

export interface SignFileInput extends Omit<SignOptions, 'manifest'> {
  /** The file to sign; read, never changed. It must not change while it is being signed. */
  sourcePath: string;
  /** Where the signed file is written (replaced if it exists; removed again if signing fails). */
  outputPath: string;
  /**
   * The definition, or how to build it once signFile has looked for a manifest in the source (so the file is read
   * for that once): `(sourceHasManifest) => buildManifestDefinition(request, { sourceHasManifest, ... })`.
   */
  manifest: ManifestDefinition | ((sourceHasManifest: boolean) => ManifestDefinition);
}

/** The definition says created, but the source has a manifest that signing would silently discard. */
export class SourceManifestConflictError extends C2paError {
  constructor() {
    super('the source already carries a C2PA manifest: build the definition with sourceHasManifest: true (c2pa.opened)');
    this.name = 'SourceManifestConflictError';
  }
}

/**
 * The largest source signFile hands to c2pa-wasm. Its wasm32 build keeps the whole asset in WASM memory at least twice
 * (c2pa-rs's intermediate stream and the output, each a Vec grown by doubling) and has 4 GiB of address space.
 * Measured with c2pa-wasm 0.13.3 (c2pa-rs 0.91.3): a WAV takes 6.0x its size of WASM memory (600 MiB: 3.6 GiB), an
 * MP4 3-5.4x in power-of-two steps (256 MiB: 1.05 GiB, 400-700 MiB: 2.1 GiB); an 800 MiB or 1 GiB MP4 runs out at
 * 2.8 GiB, or just fits (3.9 GiB) when earlier allocations happened to leave room. Out of memory the WASM traps
 * (`unreachable`) inside a callback, which is no rejection: it kills the process. Refusing first gives the job a reason.
 */
export const MAX_WASM_SIGN_BYTES = 600 * 1024 * 1024;

/** c2pa-wasm (c2pa-js BlobStream) reads a source Blob of at most this size whole into WASM memory, larger ones by slices. */
export const C2PA_WASM_WHOLE_READ_BYTES = 50 * 1024 * 1024;

/** The source is larger than c2pa-wasm can sign (MAX_WASM_SIGN_BYTES). */
export class SourceTooLargeError extends C2paError {
  constructor(readonly size: number) {
    super(`the file is ${(size / 2 ** 20).toFixed(0)} MiB; c2pa-wasm can sign at most ${MAX_WASM_SIGN_BYTES / 2 ** 20} MiB (it holds the whole file in its 4 GiB of WASM memory several times over)`);
    this.name = 'SourceTooLargeError';
  }
}

/**
 * Embeds a manifest signed by the vault key and returns the signed file.
 *
 * CPU-bound for tens of milliseconds (hashing, JUMBF, c2pa-rs verify-after-sign) around one awaited vault call;
 * run it where it cannot stall BullMQ's lock renewal (sandboxed processor or worker thread). Concurrent calls
 * in one process are safe: each uses its own builder in the shared WASM instance.
 */
export async function signAsset(input: SignAssetInput): Promise<Uint8Array> {
  return (await signAssetWithManifest(input)).asset;
}

/** What signing produced: the signed file and its manifest store on its own (JUMBF, application/c2pa). */
export interface SignedAsset {
  asset: Uint8Array;
  manifestStore: Uint8Array;
}

/** signAsset, also handing back the manifest store it embedded (for the manifest repository). */
export async function signAssetWithManifest(input: SignAssetInput): Promise<SignedAsset> {
  const mimeType = assertSignableMedia(input.bytes, input.mimeType);
  if (!opensParentIngredient(input.manifest) && (await hasManifest(input.bytes, mimeType))) throw new SourceManifestConflictError();
  return signSource(input, mimeType, new BytesBlob(input.bytes, mimeType), { bytes: input.bytes });
}

/** signFile's source in memory: the file's bytes, signed without touching the disk. */
export interface SignBytesInput extends Omit<SignFileInput, 'sourcePath' | 'outputPath'> {
  bytes: Uint8Array;
}

/** The signed file in memory, its SHA-256 and the manifest store it carries. */
export interface SignedBytes extends SignedAsset {
  sha256: string;
}

/**
 * signFile for a source in memory (at most C2PA_WASM_WHOLE_READ_BYTES: c2pa-wasm copies it whole anyway): the
 * signed file is returned with its SHA-256, for the caller to store as it is.
 */
export async function signBytes(input: SignBytesInput): Promise<SignedBytes> {
  if (input.bytes.byteLength > C2PA_WASM_WHOLE_READ_BYTES) throw new RangeError(`signBytes takes at most ${C2PA_WASM_WHOLE_READ_BYTES} bytes; sign larger files with signFile`);
  const mimeType = assertSignableMedia(input.bytes, input.mimeType);
  const signed = await signChecked(input, mimeType, new BytesBlob(input.bytes, mimeType), { bytes: input.bytes });
  return { ...signed, sha256: createHash('sha256').update(signed.asset).digest('hex') };
}

/** The signed file on disk: its size and SHA-256, and the manifest store it carries. */
export interface SignedFile {
  size: number;
  sha256: string;
  manifestStore: Uint8Array;
}

/**
 * signAssetWithManifest for a file on disk, writing the signed file to `outputPath`: for files of any size the
 * service accepts (video, audio). c2pa-rs reads a source over 50 MB through a FileBlob, only the ranges it asks for,
 * when it asks; a smaller one is read into memory once (c2pa-wasm copies it whole anyway). c2pa-wasm itself still
 * holds the file several times over and returns the signed file as one array (see MAX_WASM_SIGN_BYTES): it is
 * written to `outputPath` and hashed, then dropped.
 */
export async function signFile(input: SignFileInput): Promise<SignedFile> {
  const source = FileBlob.open(input.sourcePath, input.mimeType);
  try {
    if (source.size > MAX_WASM_SIGN_BYTES) throw new SourceTooLargeError(source.size);
    // c2pa-wasm copies a source of at most 50 MB whole into WASM memory on every pass (the manifest look-up, the
    // signing): such a file is read from disk once, here, and handed over without a copy (and its type told from
    // those bytes, not by more reads). Larger ones stay on disk. Read synchronously: signing runs in a process of
    // its own and blocks it for far longer anyway, and through the thread pool a 3-4 MiB read took 2-6 ms here
    // against 0.4-0.8 ms.
    const inMemory = source.size <= C2PA_WASM_WHOLE_READ_BYTES ? readFileSync(input.sourcePath) : undefined;
    const mimeType = inMemory ? assertSignableMedia(inMemory, input.mimeType) : await assertSignableFile(input.sourcePath, input.mimeType);
    const blob = inMemory ? new BytesBlob(inMemory, mimeType) : source;
    const thumbnailSource = { path: input.sourcePath, bytes: async () => inMemory ?? readFileSync(input.sourcePath) };
    const { asset, manifestStore } = await signChecked(input, mimeType, blob, thumbnailSource);
    const sha256 = await writeAndHash(input.outputPath, asset);
    return { size: asset.byteLength, sha256, manifestStore };
  } finally {
    source.close();
  }
}

/** Looks for a manifest in the source, builds the definition accordingly (when given a builder) and signs. */
async function signChecked(input: Omit<SignFileInput, 'sourcePath' | 'outputPath'>, mimeType: SignableMimeType, blob: Blob, thumbnailSource: ThumbnailSource): Promise<SignedAsset> {
  const carriesManifest = await sourceHasManifest(blob, mimeType);
  const manifest = typeof input.manifest === 'function' ? input.manifest(carriesManifest) : input.manifest;
  if (!opensParentIngredient(manifest) && carriesManifest) throw new SourceManifestConflictError();
  return signSource({ ...input, manifest }, mimeType, blob, thumbnailSource);
}

/**
 * Writes `bytes` to a new file at `filePath` and returns their SHA-256 (hex). A partly written file is removed.
 * Up to 50 MB synchronously, in one write, then the hash: right after signing, a 3-4 MiB file took 2.9-4.3 ms so
 * against 6.6-8.3 ms through the thread pool. Larger files a piece at a time: each piece is written on libuv's thread
 * pool while this thread hashes it (still in the CPU cache): 91 ms for 128 MiB against 107 ms synchronously.
 */
async function writeAndHash(filePath: string, bytes: Uint8Array): Promise<string> {
  // A new file rather than one truncated in place: overwriting a 16 MiB file costs three times writing a new one.
  if (bytes.byteLength <= C2PA_WASM_WHOLE_READ_BYTES) {
    try {
      rmSync(filePath, { force: true });
      writeFileSync(filePath, bytes, { flag: 'wx', mode: 0o600 });
      return createHash('sha256').update(bytes).digest('hex');
    } catch (err) {
      rmSync(filePath, { force: true });
      throw err;
    }
  }
  const piece = 1024 * 1024;
  const hash = createHash('sha256');
  let handle: FileHandle | undefined;
  try {
    await rm(filePath, { force: true });
    handle = await open(filePath, 'wx', 0o600);
    for (let offset = 0; offset < bytes.byteLength; offset += piece) {
      const chunk = bytes.subarray(offset, Math.min(offset + piece, bytes.byteLength));
      const writing = writeFully(handle, chunk, offset);
      hash.update(chunk);
      await writing;
    }
    await handle.close();
    handle = undefined;
    return hash.digest('hex');
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await rm(filePath, { force: true });
    throw err;
  }
}

async function writeFully(handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < chunk.byteLength; ) done += (await handle.write(chunk, done, chunk.byteLength - done, position + done)).bytesWritten;
}

/** Whether the file carries a C2PA manifest store (structure only, no validation), read from disk. */
export async function fileHasManifest(filePath: string, mimeType: SignableMimeType): Promise<boolean> {
  const checked = await assertSignableFile(filePath, mimeType);
  const source = FileBlob.open(filePath, checked);
  try {
    return await sourceHasManifest(source, checked);
  } finally {
    source.close();
  }
}

/** assertSignableMedia for a file on disk: the declared type must be the registry's and the content's. */
async function assertSignableFile(filePath: string, mimeType: string): Promise<SignableMimeType> {
  if (!isSignableMimeType(mimeType)) throw new UnsupportedMediaTypeError(mimeType);
  let detected: string | undefined;
  try {
    detected = (await identifyMedia(filePath, { checkStructure: false })).mimeType;
  } catch (err) {
    if (!(err instanceof MediaRejectedError)) throw err;
  }
  if (detected !== mimeType) throw new MediaTypeMismatchError(mimeType, detected);
  return mimeType;
}

/** The signing both entry points share; `source` is a BytesBlob or a FileBlob, already checked to be `mimeType`. */
async function signSource(input: SignOptions, mimeType: SignableMimeType, source: Blob, thumbnailSource: ThumbnailSource): Promise<SignedAsset> {
  const opensParent = opensParentIngredient(input.manifest);
  const { WasmBuilder } = c2paWasm();
  const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper });
  // c2pa-wasm flattens a rejected sign() into a string; keep the original (VaultUnavailableError, a timestamp
  // failure) so callers can tell a retryable vault outage from a bad file.
  let signFailure: unknown;
  const capturingSigner = {
    ...signer,
    sign: async (claim: Uint8Array) => {
      try {
        return await signer.sign(claim);
      } catch (err) {
        signFailure = err;
        throw err;
      }
    },
  };

  // c2pa-rs's WASM build cannot make the claim thumbnail the definition names: it is made here (thumbnail.ts).
  let definition = input.manifest;
  let thumbnail: Uint8Array | undefined;
  if (definition.thumbnail) {
    try {
      thumbnail = input.thumbnail ?? (await claimThumbnailOf(thumbnailSource, mimeType, { ffmpegPath: input.ffmpegPath }));
    } catch (err) {
      input.onThumbnailError?.(err);
      const { thumbnail: _omitted, ...rest } = definition;
      definition = rest;
    }
  }

  let builder: Builder | undefined;
  try {
    const context = signingSettings({ trustAnchorsPem: input.trustAnchorsPem, verifyAfterSign: input.verifyAfterSign });
    builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: mimeType }), context);
    if (thumbnail && definition.thumbnail) builder.addResourceFromBlob(definition.thumbnail.identifier, new BytesBlob(thumbnail, 'image/jpeg'));
    if (opensParent) {
      // The parent keeps its own title (its active manifest's), not the title of the manifest being made.
      const parentTitle = await activeManifestTitle(source, mimeType);
      const parent = { ...(parentTitle === undefined ? {} : { title: parentTitle }), relationship: 'parentOf', label: PARENT_INGREDIENT_ID };
      await builder.addIngredientFromBlob(JSON.stringify(parent), mimeType, source);
    }
    const { asset, manifest } = (await builder.signAndGetManifestBytes(capturingSigner, [], mimeType, source)) as { asset: Uint8Array; manifest: Uint8Array };
    return { asset, manifestStore: manifest };
  } catch (err) {
    if (signFailure !== undefined) throw signFailure;
    if (err instanceof C2paError) throw err;
    throw new C2paError(`c2pa-rs could not sign the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  } finally {
    // WASM memory is not garbage collected promptly; free the builder now.
    builder?.free();
  }
}
