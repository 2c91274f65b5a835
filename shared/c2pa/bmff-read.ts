import { manifestStoreOf, withBmffFile } from './bmff-c2pa-boxes.js';
import { standInOf } from './bmff-stand-in.js';
import type { SignableMimeType } from './media-type.js';
import { readAsset, readDetachedManifest, type ReadOptions, type VerificationReport } from './read-asset.js';

/**
 * Reads the manifest embedded in an MP4, M4V, MOV or M4A file of any size in bounded memory, where c2pa-wasm would
 * hold the whole file in its WASM memory (4 GiB at most) several times over: the manifest store is read out of the
 * file's C2PA box (a few kilobytes to megabytes), c2pa-rs validates the claim, its signature and its assertions as it
 * does for a sidecar, and the BMFF hash is checked against the file by streaming (bmff-hash.ts, c2pa-rs's check
 * ported). A file without a C2PA box is handed to c2pa-rs as its stand-in (ftyp and XMP boxes): no manifest, or the
 * remote manifest its XMP names.
 */

/** What a BMFF file carries: its manifest store, or (without one) the stand-in c2pa-rs reads instead. */
export async function embeddedBmffManifest(filePath: string): Promise<{ store: Uint8Array } | { standIn: Uint8Array }> {
  return withBmffFile(filePath, async (file, top) =>
    top.manifestBox ? { store: new Uint8Array(await manifestStoreOf(file, top.manifestBox)) } : { standIn: await standInOf(file, top, { manifest: false }) },
  );
}

/** readAssetFile for a BMFF file of any size (a file c2pa-rs cannot walk is BmffUnsignableError). */
export async function readBmffFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<VerificationReport> {
  const embedded = await embeddedBmffManifest(filePath);
  if ('standIn' in embedded) return readAsset(embedded.standIn, mimeType, options);
  return readDetachedManifest(embedded.store, filePath, options, { kind: 'embedded', url: null, asset_checked: true });
}
