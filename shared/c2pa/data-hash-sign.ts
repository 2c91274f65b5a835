/**
 * Signs a WAV, MP3 or FLAC file of any size in bounded memory, with the manifest embedded where c2pa-rs 0.91 embeds it
 * and a c2pa.hash.data computed here, as named steps (the BMFF path's, bmff-sign.ts, for a data hash):
 *
 * 1. spot: where the file carries its manifest and what c2pa-rs reads of it (data-hash-spot.ts: riff-manifest.ts,
 *    id3-manifest.ts);
 * 2. stand in: what c2pa-wasm is shown of the file: does it carry a manifest, which makes the definition
 *    `c2pa.opened` with the file as parent ingredient (its data hash checked against the whole file here);
 * 3. size: the stand-in signed with a placeholder hash and signature (no vault call), which gives the manifest store's
 *    final size, and so the output's layout and the data hash's exclusion (signed again while the exclusion's length
 *    changes the store's size: CBOR writes larger numbers in more bytes);
 * 4. write and hash: the output written in one pass over the source, every byte but the manifest's room hashed
 *    (data-hash-write.ts);
 * 5. sign: the stand-in signed for real with that hash (vault, TSA): the same size as the placeholder (a fixed-length
 *    hash, a signature padded to its reserve);
 * 6. embed: the manifest store written into its room;
 * 7. check: the manifest read back out of the written file and validated by c2pa-rs, its data hash checked against the
 *    whole file by streaming (c2pa-wasm's verify_after_sign does not hash the asset), while the file's SHA-256 is
 *    computed.
 *
 * c2pa-rs keeps a caller-built c2pa.hash.data as it is: it hashes the asset only when the claim has no hash assertion
 * yet (store.rs, start_save_stream). Memory: two copy chunks, the tag or headers and the manifest, whatever the file's
 * size. Disk: the output only (the source is read in place).
 */
import { X509Certificate } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { ingredientOfStandIn, placeholderSigner, signStandIn, type StandInSigning } from './bmff-stand-in.js';
import { BMFF_HASH_BYTES } from './bmff-stream-hash.js';
import { writeRoom } from './bmff-write.js';
import { coseSigner } from './cose-sign1.js';
import { storeDataHashMatches, readDataHashedFile } from './data-hash-read.js';
import { withManifestSpot } from './data-hash-open.js';
import { AudioUnsignableError, type Exclusion, type ManifestSpot } from './data-hash-spot.js';
import { writeDataHashed } from './data-hash-write.js';
import { C2paError } from './errors.js';
import { startHashingThread } from './file-sha256.js';
import { opensParentIngredient } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import { activeManifestTitle, sourceHasManifest } from './read-asset.js';
import { signingSettings } from './settings.js';
import { withClaimThumbnail } from './sign-builder.js';
import { SourceManifestConflictError, type SignedFile, type SignFileInput } from './sign-options.js';
import { BytesBlob } from './wasm.js';

const DATA_HASH_LABEL = 'c2pa.hash.data';

/** Placeholder signings before the exclusion's length settles (two, unless the store's size crosses a CBOR size class). */
const MAX_SIZINGS = 4;

/** The c2pa.hash.data assertion's data as c2pa-rs's builder takes it (byte strings as arrays of numbers). */
function dataHashAssertion(exclusion: Exclusion, digest: Uint8Array): Record<string, unknown> {
  return { exclusions: [{ start: exclusion.start, length: exclusion.length }], name: 'jumbf manifest', alg: 'sha256', hash: [...digest], pad: [] };
}

/** The anchor the written file is checked under: the chain's own issuer, which its signer chains to. */
function checkAnchor(input: SignFileInput): string {
  return new X509Certificate(input.chainDer.at(-1)!).toString();
}

/** Step 7: anything but a manifest that validates with a matching data hash (its signer's trust aside) is not returned. */
async function checkSigned(outputPath: string, mimeType: SignableMimeType, anchor: string): Promise<void> {
  const { report } = await readDataHashedFile(outputPath, mimeType, { trustAnchorsPem: anchor });
  const failures = report.status.failure.filter((c) => c !== 'signingCredential.untrusted');
  if (report.validation_state === 'none' || failures.length || !report.status.success.includes('assertion.dataHash.match')) {
    throw new C2paError(`the signed ${mimeType} file does not verify: ${report.summary}`);
  }
}

/** Step 3: the layout for the placeholder store's size, with the exclusion the store was signed with. */
async function sized(spot: ManifestSpot, signing: StandInSigning): Promise<{ layout: ReturnType<ManifestSpot['plan']>; storeBytes: number; signing: StandInSigning }> {
  // A first guess in the size class of most stores (CBOR writes 256-65535 in 3 bytes): the second pass then agrees.
  let length = 0x100;
  for (let pass = 0; pass < MAX_SIZINGS; pass += 1) {
    const exclusion = { ...spot.plan(0).exclusion, length };
    const withExclusion = { ...signing, hashAssertion: (digest: Uint8Array) => dataHashAssertion(exclusion, digest) };
    const storeBytes = (await signStandIn({ ...withExclusion, signer: placeholderSigner(signing.signer) }, new Uint8Array(BMFF_HASH_BYTES))).byteLength;
    const layout = spot.plan(storeBytes);
    if (layout.exclusion.length === length && layout.exclusion.start === exclusion.start) return { layout, storeBytes, signing: withExclusion };
    length = layout.exclusion.length;
  }
  throw new C2paError('the manifest store\'s size did not settle');
}

/** signFile for WAV, MP3 and FLAC (signFile hands them here, their type already checked). */
export async function signDataHashedFile(input: SignFileInput, mimeType: SignableMimeType): Promise<SignedFile> {
  const source = await open(input.sourcePath, 'r');
  // For step 7, started now: it is ready when the file is written.
  const hashing = startHashingThread();
  try {
    return await withManifestSpot(input.sourcePath, mimeType, async (spot) => {
      // 2. stand in
      const standIn = await spot.standIn({ manifest: true });
      const carriesManifest = await sourceHasManifest(new BytesBlob(standIn, mimeType), mimeType);
      const requested = typeof input.manifest === 'function' ? input.manifest(carriesManifest) : input.manifest;
      if (!opensParentIngredient(requested) && carriesManifest) throw new SourceManifestConflictError();
      const store = opensParentIngredient(requested) ? await spot.store() : undefined;
      if (opensParentIngredient(requested) && !store) throw new AudioUnsignableError('its manifest is not embedded in it (a remote manifest cannot be its parent ingredient)');
      const { definition, thumbnail } = await withClaimThumbnail(input, requested, mimeType, { path: input.sourcePath });
      const settings = signingSettings({ trustAnchorsPem: input.trustAnchorsPem, verifyAfterSign: false });
      const parent = store
        ? await ingredientOfStandIn(standIn, store, mimeType, settings, await activeManifestTitle(new BytesBlob(standIn, mimeType), mimeType), { stem: 'dataHash', matches: await storeDataHashMatches(store, input.sourcePath) })
        : undefined;
      const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper });
      const base: StandInSigning = { definition, mimeType, thumbnail, settings, signer, standIn: await spot.standIn({ manifest: false }), parent, hashLabel: DATA_HASH_LABEL };

      // 3. size
      const { layout, storeBytes, signing } = await sized(spot, base);
      try {
        // 4. write and hash
        const digest = await writeDataHashed(source, layout.plan, input.outputPath);
        // 5. sign
        const signed = await signStandIn(signing, digest);
        if (signed.byteLength !== storeBytes) throw new C2paError(`the signed manifest store is ${signed.byteLength} bytes, not the ${storeBytes} its placeholder had`);
        // 6. embed
        await writeRoom(input.outputPath, layout.plan.room, spot.roomBytes(signed));
        // 7. check
        const [[sha256]] = await Promise.all([hashing.sha256Of([input.outputPath]), input.verifyAfterSign === false ? undefined : checkSigned(input.outputPath, mimeType, checkAnchor(input))]);
        return { size: layout.plan.size, sha256, manifestStore: signed };
      } catch (err) {
        await rm(input.outputPath, { force: true });
        throw err;
      }
    });
  } finally {
    await hashing.close();
    await source.close();
  }
}
