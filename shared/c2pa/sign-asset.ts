import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatFor, identifyMedia, MediaRejectedError } from '../media/formats.js';
import { repackZipStored } from '../media/zip-repack.js';
import { signBmffFile } from './bmff-sign.js';
import { signDataHashedFile } from './data-hash-sign.js';
import { coseSigner } from './cose-sign1.js';
import { C2paError } from './errors.js';
import { opensParentIngredient, PARENT_INGREDIENT_ID } from './manifest-definition.js';
import { activeManifestLabel } from './manifest-store-label.js';
import { assertSignableMedia, isSignableMimeType, MediaTypeMismatchError, UnsupportedMediaTypeError, type SignableMimeType } from './media-type.js';
import { activeManifestTitle, hasManifest, sourceHasManifest } from './read-asset.js';
import { assertRemoteManifestSupported } from './remote-manifest.js';
import { signingSettings } from './settings.js';
import { withClaimThumbnail, withSigningBuilder } from './sign-builder.js';
import { SourceManifestConflictError, type SignedFile, type SignFileInput, type SignOptions } from './sign-options.js';
import type { ThumbnailSource } from './thumbnail.js';
import { BytesBlob, FileBlob } from './wasm.js';
import { writeFully } from './file-handle-io.js';

export interface SignAssetInput extends SignOptions {
  bytes: Uint8Array;
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
  if (input.remoteManifest) assertRemoteManifestSupported(mimeType);
  if (signedStreamed(mimeType)) return signStreamedBytes(input, mimeType);
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
  if (input.remoteManifest) assertRemoteManifestSupported(mimeType);
  if (signedStreamed(mimeType)) return signStreamedBytes(input, mimeType);
  const signed = await signChecked(input, mimeType, new BytesBlob(input.bytes, mimeType), { bytes: input.bytes });
  return { ...signed, sha256: createHash('sha256').update(signed.asset).digest('hex') };
}

/**
 * MP4, M4V, MOV and M4A (bmff-sign.ts), WAV, MP3 and FLAC (data-hash-sign.ts): signed streamed, whatever their size,
 * and only so.
 */
function signedStreamed(mimeType: SignableMimeType): boolean {
  return formatFor(mimeType)?.streamed !== undefined;
}

/** signFile for a format signed streamed: its own path, the type checked from the content. */
async function signStreamedFile(input: SignFileInput, mimeType: SignableMimeType): Promise<SignedFile> {
  return formatFor(mimeType)?.streamed === 'bmff' ? signBmffFile(input, mimeType) : signDataHashedFile(input, mimeType);
}

/** A file in memory of a format signed streamed, on the one path such files take: written to a temp file, signed streamed, read back. */
async function signStreamedBytes(input: SignBytesInput, mimeType: SignableMimeType): Promise<SignedBytes> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamed-sign-'));
  try {
    const sourcePath = path.join(dir, 'source');
    const outputPath = path.join(dir, 'signed');
    await writeFile(sourcePath, input.bytes, { mode: 0o600 });
    const signed = await signStreamedFile({ ...input, sourcePath, outputPath }, mimeType);
    return { asset: new Uint8Array(await readFile(outputPath)), manifestStore: signed.manifestStore, sha256: signed.sha256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * signAssetWithManifest for a file on disk, writing the signed file to `outputPath`: for files of any size the
 * service accepts (video, audio). MP4, M4V, MOV and M4A (bmff-sign.ts), WAV, MP3 and FLAC (data-hash-sign.ts) are
 * signed streamed, in bounded memory. Other
 * formats go to c2pa-wasm: it reads a source over 50 MB through a FileBlob, only the ranges it asks for, when it asks;
 * a smaller one is read into memory once (c2pa-wasm copies it whole anyway). c2pa-wasm itself still holds the file
 * several times over and returns the signed file as one array (see MAX_WASM_SIGN_BYTES): it is written to
 * `outputPath` and hashed, then dropped.
 */
export async function signFile(input: SignFileInput): Promise<SignedFile> {
  // The streamed writers and ZIP containers cannot keep the manifest out of the file (remote-manifest.ts).
  if (input.remoteManifest) assertRemoteManifestSupported(input.mimeType);
  if (isSignableMimeType(input.mimeType) && signedStreamed(input.mimeType)) return signStreamedFile(input, await assertSignableFile(input.sourcePath, input.mimeType));
  const format = formatFor(input.mimeType);
  if (format?.container !== 'zip') return signWithWasm(input);
  // c2pa-wasm reads only stored entries: a container with deflated ones is signed as its all-stored copy.
  const storedPath = `${input.outputPath}.stored`;
  try {
    const repacked = await repackZipStored(input.sourcePath, storedPath, format.label);
    return await signWithWasm(repacked ? { ...input, sourcePath: storedPath } : input);
  } finally {
    await rm(storedPath, { force: true });
  }
}

/** signFile for the formats c2pa-wasm signs from a source it reads itself. */
async function signWithWasm(input: SignFileInput): Promise<SignedFile> {
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
  const { definition, thumbnail } = await withClaimThumbnail(input, input.manifest, mimeType, thumbnailSource);
  const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper, ocspResponse: input.ocspResponse });
  const settings = signingSettings({ trustAnchorsPem: input.trustAnchorsPem, verifyAfterSign: input.verifyAfterSign });
  return withSigningBuilder({ definition, mimeType, thumbnail, settings, signer, remoteManifest: input.remoteManifest }, async (builder, capturingSigner) => {
    if (opensParentIngredient(definition)) {
      // The parent keeps its own title (its active manifest's), not the title of the manifest being made.
      const parentTitle = await activeManifestTitle(source, mimeType);
      const parent = { ...(parentTitle === undefined ? {} : { title: parentTitle }), relationship: 'parentOf', label: PARENT_INGREDIENT_ID };
      await builder.addIngredientFromBlob(JSON.stringify(parent), mimeType, source);
    }
    const { asset, manifest } = (await builder.signAndGetManifestBytes(capturingSigner, [...(input.identityAssertions ?? [])], mimeType, source)) as { asset: Uint8Array; manifest: Uint8Array };
    // The file names the store's URL by this label: a store under any other would never be found there.
    if (input.remoteManifest && activeManifestLabel(manifest) !== input.remoteManifest.label) {
      throw new C2paError(`c2pa-rs did not keep the preset manifest label ${input.remoteManifest.label}`);
    }
    return { asset, manifestStore: manifest };
  });
}
