/**
 * Signs an MP4, M4V, MOV or M4A file of any size in bounded memory, with the manifest embedded where c2pa-rs embeds it,
 * as named steps:
 *
 * 1. walk: the source's boxes as c2pa-rs walks them (bmff-walk.ts), its top level, C2PA and XMP boxes
 *    (bmff-c2pa-boxes.ts) and the offset fields c2pa-rs moves (bmff-offset-fields.ts);
 * 2. stand in: what c2pa-wasm is shown of the file (bmff-stand-in.ts): does it carry a manifest, which makes the
 *    definition `c2pa.opened` with the file as parent ingredient; the claim thumbnail (an ffmpeg frame) is started:
 *    of a file of THUMBNAIL_ALONGSIDE_FROM_BYTES or more it is taken while steps 3 to 5 run, a smaller one waits for it;
 * 3. size: the stand-in signed once with a placeholder hash, signature and thumbnail (no vault call; while the
 *    thumbnail is being taken, one the size of the room kept for it), which gives the manifest store's final size, and
 *    so the room to reserve for it;
 * 4. plan: the output's layout with that room (bmff-layout.ts);
 * 5. write and hash: the output written in one pass over the source, hashed as it is written (bmff-write.ts,
 *    bmff-stream-hash.ts); a thumbnail larger than its room (rare: a frame of noise) has the file planned and written
 *    again for its size;
 * 6. sign: the stand-in signed for real with that hash and the thumbnail (vault, TSA);
 * 7. embed: the manifest store written into its room;
 * 8. check (bmff-signed-check.ts): the BMFF hash checked by streaming (c2pa-wasm 0.13's verify_after_sign does not
 *    hash BMFF): of the written body as soon as it is written when ffmpeg is still taking the thumbnail, else of the
 *    whole file after step 7; after step 7, the manifest read back out of the written file and validated by c2pa-rs,
 *    while the file's SHA-256 is computed.
 *
 * Memory: the chunks of step 5 and the small boxes of step 2, whatever the file's size. Disk: the output only (the
 * source is read in place).
 */
import { X509Certificate } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { BmffUnsignableError, standInOf, withBmffFile, type BmffTopLevel } from './bmff-c2pa-boxes.js';
import { planBmffLayout, type BmffLayout } from './bmff-layout.js';
import { offsetFields, type OffsetFields } from './bmff-offset-fields.js';
import { checkSignedFile, checkWrittenBody } from './bmff-signed-check.js';
import { parentIngredientOf, placeholderSigner, signStandIn, type StandInSigning } from './bmff-stand-in.js';
import { bmffHashAssertion, BmffStreamHash } from './bmff-stream-hash.js';
import type { BmffFileReader } from './bmff-walk.js';
import { roomFor, writeBmffBody, writeManifestRoom } from './bmff-write.js';
import { coseSigner } from './cose-sign1.js';
import { startHashingThread } from './file-sha256.js';
import { opensParentIngredient } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import { activeManifestTitle, sourceHasManifest } from './read-asset.js';
import { signingSettings } from './settings.js';
import { withClaimThumbnail } from './sign-builder.js';
import { thumbnailRunsFfmpeg } from './thumbnail.js';
import { SourceManifestConflictError, type SignedFile, type SignFileInput } from './sign-options.js';
import { BytesBlob } from './wasm.js';

/**
 * Room beyond the placeholder store's size. The store is the same size when signed for real (fixed-length hash, a
 * signature padded to its reserve, the same ingredient), less what the thumbnail leaves of the room kept for it; this
 * is a margin, left as a `free` box.
 */
const ROOM_SLACK_BYTES = 1024;

/** The anchor the written file is checked under: the chain's own issuer, which its signer chains to. */
function checkAnchor(input: SignFileInput): string {
  return new X509Certificate(input.chainDer.at(-1)!).toString();
}

/**
 * How a signed file is bound to its manifest: the c2pa.hash.bmff.v3 assertion's data for the digest computed while the
 * file is written, and how the written file is checked (step 8): `checkBody` before its manifest is embedded (while the
 * thumbnail is taken), `check` after. By default a file-level hash (bmffHashAssertion) checked by bmff-signed-check.ts;
 * a fragmented MP4's init segment carries Merkle trees instead (bmff-rendition-sign.ts).
 */
export interface BmffBinding {
  assertion: (digest: Uint8Array) => Record<string, unknown>;
  checkBody?: (outputPath: string, digest: Uint8Array) => Promise<void>;
  /** `checkedDigest`: the digest the body was checked for, when checkBody ran. */
  check: (outputPath: string, mimeType: SignableMimeType, anchor: string, checkedDigest?: Uint8Array) => Promise<void>;
}

const FILE_HASH: BmffBinding = { assertion: bmffHashAssertion, checkBody: checkWrittenBody, check: checkSignedFile };

/**
 * Room kept in the manifest for the claim thumbnail while ffmpeg takes it (steps 3 to 5 do not wait for it): enough
 * for the 512-pixel JPEG of any frame but the noisiest. What the thumbnail leaves of it is part of the `free` box
 * after the manifest.
 */
export const CLAIM_THUMBNAIL_ROOM_BYTES = 64 * 1024;

/**
 * From this size a video is written while its thumbnail is taken. A smaller one is written quickly enough to wait
 * for the thumbnail, and gets a room of the thumbnail's own size.
 */
export const THUMBNAIL_ALONGSIDE_FROM_BYTES = 16 * 1024 * 1024;

/** Where the thumbnail is taken while the file is written, and the room kept for it meanwhile (defaults above). */
export interface ThumbnailRoom {
  fromBytes?: number;
  bytes?: number;
}

/** What steps 3 and 4 need besides the stand-in's signing: the source's boxes and the offset fields to move. */
interface Source {
  handle: FileHandle;
  file: BmffFileReader;
  top: BmffTopLevel;
  fields: OffsetFields;
}

/** Steps 3 and 4: the placeholder store's size for this signing, and the output's layout with room for it. */
async function sizedLayout(source: Source, signing: StandInSigning): Promise<BmffLayout> {
  const placeholder = await signStandIn({ ...signing, signer: placeholderSigner(signing.signer) });
  return planBmffLayout(source.file, source.top, source.fields, roomFor(placeholder.byteLength, ROOM_SLACK_BYTES));
}

/** Step 5: the output written as planned; returns its digest for the binding. */
async function writeHashed(source: Source, layout: BmffLayout, outputPath: string): Promise<Buffer> {
  const hash = new BmffStreamHash(layout.boxes);
  await writeBmffBody(source.handle, source.file, layout, outputPath, (chunk) => hash.update(chunk));
  return hash.digest();
}

/**
 * Step 8's first part, on the body as written (it runs while the thumbnail is taken). Settles to its failure, if any,
 * rather than rejecting: nothing may be waiting for it when it fails.
 */
function startBodyCheck(checkBody: NonNullable<BmffBinding['checkBody']>, outputPath: string, digest: Uint8Array): Promise<unknown> {
  return checkBody(outputPath, digest).then(
    () => undefined,
    (err: unknown) => err ?? new Error('the written body could not be checked'),
  );
}

/**
 * signFile for MP4, M4V, MOV and M4A (signFile hands them here, their type already checked). `binding`: how the file is
 * bound to its manifest; `thumbnailPath`: the file ffmpeg takes the claim thumbnail's frame from (default the source);
 * `thumbnailRoom`: from what size, and in how much room, the file is written while the thumbnail is taken.
 */
export async function signBmffFile(input: SignFileInput, mimeType: SignableMimeType, options: { binding?: BmffBinding; thumbnailPath?: string; thumbnailRoom?: ThumbnailRoom } = {}): Promise<SignedFile> {
  const binding = options.binding ?? FILE_HASH;
  const handle = await open(input.sourcePath, 'r');
  // For step 8, started now: it is ready when the file is written.
  const hashing = startHashingThread();
  try {
    return await withBmffFile(input.sourcePath, async (file, top) => {
      // 2. stand in
      const standIn = await standInOf(file, top, { manifest: true });
      // Without a C2PA box, and without XMP (which can name a remote manifest), c2pa-rs would find no manifest: it is
      // not asked, and the thumbnail's frame is started the sooner.
      const carriesManifest = top.c2paBoxes.length > 0 || top.xmpBox !== undefined ? await sourceHasManifest(new BytesBlob(standIn, mimeType), mimeType) : false;
      const requested = typeof input.manifest === 'function' ? input.manifest(carriesManifest) : input.manifest;
      if (!opensParentIngredient(requested) && carriesManifest) throw new SourceManifestConflictError();
      if (opensParentIngredient(requested) && !top.manifestBox) throw new BmffUnsignableError('its manifest is not embedded in it (a remote manifest cannot be its parent ingredient)');
      // It never rejects (a thumbnail that cannot be made is left out), and is waited for before this returns,
      // whatever happens. Alongside: taken while the file is planned, written and hashed (ffmpeg runs in a process of
      // its own); otherwise (a small file, or no frame to take) waited for now.
      const thumbnailing = withClaimThumbnail(input, requested, mimeType, { path: options.thumbnailPath ?? input.sourcePath });
      const alongside = Boolean(requested.thumbnail) && input.thumbnail === undefined && thumbnailRunsFfmpeg(mimeType, input) && top.size >= (options.thumbnailRoom?.fromBytes ?? THUMBNAIL_ALONGSIDE_FROM_BYTES);
      try {
        const settings = signingSettings({ trustAnchorsPem: input.trustAnchorsPem, verifyAfterSign: false });
        const parent = opensParentIngredient(requested)
          ? await parentIngredientOf(file, top, standIn, mimeType, settings, input.sourcePath, await activeManifestTitle(new BytesBlob(standIn, mimeType), mimeType))
          : undefined;
        const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper, ocspResponse: input.ocspResponse });
        const base: StandInSigning = { definition: requested, mimeType, settings, signer, standIn: await standInOf(file, top, { manifest: false }), parent, hashAssertion: binding.assertion };
        const source: Source = { handle, file, top, fields: await offsetFields(file, top.tree) };
        const taken = alongside ? undefined : await thumbnailing;
        const room = alongside ? new Uint8Array(options.thumbnailRoom?.bytes ?? CLAIM_THUMBNAIL_ROOM_BYTES) : undefined;

        // 3. size and 4. plan, for the thumbnail taken or the room kept for one
        let layout = await sizedLayout(source, taken ? { ...base, ...taken } : { ...base, thumbnail: room });
        let thumbnailSettled = taken !== undefined;
        void thumbnailing.then(() => (thumbnailSettled = true));
        // The body's digest once its check started (none: the check after step 7 hashes the whole file).
        let bodyDigest: Uint8Array | undefined;
        let bodyChecked: Promise<unknown> = Promise.resolve(undefined);
        try {
          // 5. write and hash
          let digest = await writeHashed(source, layout, input.outputPath);
          // Only while ffmpeg is still at work: otherwise the check after step 7 hashes the file beside its SHA-256,
          // on the other core, rather than once more before it.
          if (!thumbnailSettled && binding.checkBody && input.verifyAfterSign !== false) {
            bodyDigest = digest;
            bodyChecked = startBodyCheck(binding.checkBody, input.outputPath, digest);
          }
          const { definition, thumbnail } = taken ?? (await thumbnailing);
          const signing: StandInSigning = { ...base, definition, thumbnail };
          if (room && thumbnail && thumbnail.byteLength > room.byteLength) {
            // More than its room: sized, planned and written again for the thumbnail it is.
            await bodyChecked;
            bodyDigest = undefined;
            layout = await sizedLayout(source, signing);
            digest = await writeHashed(source, layout, input.outputPath);
          }
          // 6. sign
          const store = await signStandIn(signing, digest);
          const bodyFailure = await bodyChecked;
          if (bodyFailure) throw bodyFailure;
          // 7. embed
          await writeManifestRoom(input.outputPath, layout.room, store);
          // 8. check
          const [[sha256]] = await Promise.all([hashing.sha256Of([input.outputPath]), input.verifyAfterSign === false ? undefined : binding.check(input.outputPath, mimeType, checkAnchor(input), bodyDigest)]);
          return { size: layout.outputSize, sha256, manifestStore: store };
        } catch (err) {
          // The body check reads the output: it ends before the output goes.
          await bodyChecked;
          await rm(input.outputPath, { force: true });
          throw err;
        }
      } finally {
        // ffmpeg reads the source: it ends before the source may go.
        await thumbnailing;
      }
    });
  } finally {
    await hashing.close();
    await handle.close();
  }
}
