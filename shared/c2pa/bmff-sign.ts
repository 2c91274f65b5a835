/**
 * Signs an MP4, M4V, MOV or M4A file of any size in bounded memory, with the manifest embedded where c2pa-rs embeds it,
 * as named steps:
 *
 * 1. walk: the source's boxes as c2pa-rs walks them (bmff-walk.ts), its top level, C2PA and XMP boxes
 *    (bmff-c2pa-boxes.ts) and the offset fields c2pa-rs moves (bmff-offset-fields.ts);
 * 2. stand in: what c2pa-wasm is shown of the file (bmff-stand-in.ts): does it carry a manifest, which makes the
 *    definition `c2pa.opened` with the file as parent ingredient; the claim thumbnail (an ffmpeg frame);
 * 3. size: the stand-in signed once with a placeholder hash and signature (no vault call), which gives the manifest
 *    store's final size, and so the room to reserve for it;
 * 4. plan: the output's layout with that room (bmff-layout.ts);
 * 5. write and hash: the output written in one pass over the source, hashed as it is written (bmff-write.ts,
 *    bmff-stream-hash.ts);
 * 6. sign: the stand-in signed for real with that hash (vault, TSA);
 * 7. embed: the manifest store written into its room;
 * 8. check: the manifest read back out of the written file and validated by c2pa-rs, its BMFF hash checked against the
 *    whole file by streaming (c2pa-wasm 0.13's verify_after_sign does not hash BMFF), while the file's SHA-256 is
 *    computed.
 *
 * Memory: the chunks of step 5 and the small boxes of step 2, whatever the file's size. Disk: the output only (the
 * source is read in place).
 */
import { X509Certificate } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { BmffUnsignableError, standInOf, withBmffFile } from './bmff-c2pa-boxes.js';
import { planBmffLayout } from './bmff-layout.js';
import { offsetFields } from './bmff-offset-fields.js';
import { readBmffFile } from './bmff-read.js';
import { parentIngredientOf, placeholderSigner, signStandIn, type StandInSigning } from './bmff-stand-in.js';
import { bmffHashAssertion, BmffStreamHash } from './bmff-stream-hash.js';
import { roomFor, writeBmffBody, writeManifestRoom } from './bmff-write.js';
import { coseSigner } from './cose-sign1.js';
import { C2paError } from './errors.js';
import { sha256OfFile } from './file-sha256.js';
import { opensParentIngredient } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import { activeManifestTitle, sourceHasManifest } from './read-asset.js';
import { signingSettings } from './settings.js';
import { withClaimThumbnail } from './sign-builder.js';
import { SourceManifestConflictError, type SignedFile, type SignFileInput } from './sign-options.js';
import { BytesBlob } from './wasm.js';

/**
 * Room beyond the placeholder store's size. The store is the same size when signed for real (fixed-length hash, a
 * signature padded to its reserve, the same thumbnail and ingredient); this is a margin, left as a `free` box.
 */
const ROOM_SLACK_BYTES = 1024;

/** The anchor the written file is checked under: the chain's own issuer, which its signer chains to. */
function checkAnchor(input: SignFileInput): string {
  return new X509Certificate(input.chainDer.at(-1)!).toString();
}

/**
 * Step 8: the written file read as verification reads it (bmff-read.ts). Anything but a manifest that validates with a
 * matching BMFF hash (its signer's trust aside) means this code wrote a file that does not verify: it is not returned.
 */
async function checkSigned(outputPath: string, mimeType: SignableMimeType, anchor: string): Promise<void> {
  const { report } = await readBmffFile(outputPath, mimeType, { trustAnchorsPem: anchor });
  const failures = report.status.failure.filter((c) => c !== 'signingCredential.untrusted');
  if (report.validation_state === 'none' || failures.length || !report.status.success.includes('assertion.bmffHash.match')) {
    throw new C2paError(`the signed ${mimeType} file does not verify: ${report.summary}`);
  }
}

/**
 * How a signed file is bound to its manifest: the c2pa.hash.bmff.v3 assertion's data for the digest computed while the
 * file is written, and how the written file is checked (step 8). By default a file-level hash (bmffHashAssertion) and
 * checkSigned; a fragmented MP4's init segment carries Merkle trees instead (bmff-rendition-sign.ts).
 */
export interface BmffBinding {
  assertion: (digest: Uint8Array) => Record<string, unknown>;
  check: (outputPath: string, mimeType: SignableMimeType, anchor: string) => Promise<void>;
}

const FILE_HASH: BmffBinding = { assertion: bmffHashAssertion, check: checkSigned };

/**
 * signFile for MP4, M4V, MOV and M4A (signFile hands them here, their type already checked). `binding`: how the file is
 * bound to its manifest; `thumbnailPath`: the file ffmpeg takes the claim thumbnail's frame from (default the source).
 */
export async function signBmffFile(input: SignFileInput, mimeType: SignableMimeType, options: { binding?: BmffBinding; thumbnailPath?: string } = {}): Promise<SignedFile> {
  const binding = options.binding ?? FILE_HASH;
  const source = await open(input.sourcePath, 'r');
  try {
    return await withBmffFile(input.sourcePath, async (file, top) => {
      // 2. stand in
      const standIn = await standInOf(file, top, { manifest: true });
      const carriesManifest = await sourceHasManifest(new BytesBlob(standIn, mimeType), mimeType);
      const requested = typeof input.manifest === 'function' ? input.manifest(carriesManifest) : input.manifest;
      if (!opensParentIngredient(requested) && carriesManifest) throw new SourceManifestConflictError();
      if (opensParentIngredient(requested) && !top.manifestBox) throw new BmffUnsignableError('its manifest is not embedded in it (a remote manifest cannot be its parent ingredient)');
      const { definition, thumbnail } = await withClaimThumbnail(input, requested, mimeType, { path: options.thumbnailPath ?? input.sourcePath });
      const settings = signingSettings({ trustAnchorsPem: input.trustAnchorsPem, verifyAfterSign: false });
      const parent = opensParentIngredient(definition)
        ? await parentIngredientOf(file, top, standIn, mimeType, settings, input.sourcePath, await activeManifestTitle(new BytesBlob(standIn, mimeType), mimeType))
        : undefined;
      const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper, ocspResponse: input.ocspResponse });
      const signing: StandInSigning = { definition, mimeType, thumbnail, settings, signer, standIn: await standInOf(file, top, { manifest: false }), parent, hashAssertion: binding.assertion };

      // 3. size
      const placeholder = await signStandIn({ ...signing, signer: placeholderSigner(signer) });
      // 4. plan
      const layout = await planBmffLayout(file, top, await offsetFields(file, top.tree), roomFor(placeholder.byteLength, ROOM_SLACK_BYTES));
      try {
        // 5. write and hash
        const hash = new BmffStreamHash(layout.boxes);
        await writeBmffBody(source, file, layout, input.outputPath, (chunk) => hash.update(chunk));
        // 6. sign
        const store = await signStandIn(signing, hash.digest());
        // 7. embed
        await writeManifestRoom(input.outputPath, layout.room, store);
        // 8. check
        const [sha256] = await Promise.all([sha256OfFile(input.outputPath), input.verifyAfterSign === false ? undefined : binding.check(input.outputPath, mimeType, checkAnchor(input))]);
        return { size: layout.outputSize, sha256, manifestStore: store };
      } catch (err) {
        await rm(input.outputPath, { force: true });
        throw err;
      }
    });
  } finally {
    await source.close();
  }
}
