import { BindingLimitExceeded } from './binding-limits.js';
import { withCrJsonBindingVerdict } from './bmff-read.js';
import { dataHashMatches, type DataHashAssertion } from './data-hash.js';
import { withManifestSpot } from './data-hash-open.js';
import { AudioUnsignableError } from './data-hash-spot.js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';
import { crJsonOf, readAsset, readDetachedManifest } from './read-asset.js';
import { activeCrJsonManifest, MANIFEST_STORE_TYPE } from './reader-open.js';
import type { ReadOptions } from './settings.js';
import type { VerificationReport } from './verification-report.js';

/**
 * Reads the manifest embedded in a WAV, MP3 or FLAC file of any size in bounded memory, where c2pa-wasm would hold the
 * whole file in its WASM memory several times over: the manifest store is read out of the file (data-hash-spot.ts),
 * c2pa-rs validates the claim, its signature and its assertions as it does for a sidecar, and the data hash is checked
 * against the file by streaming (data-hash.ts). A file without a manifest is handed to c2pa-rs as its stand-in (its
 * headers and tag, which say whether XMP names a remote manifest).
 */

/**
 * What the file carries: its manifest store, or (without one) the stand-in c2pa-rs reads instead. A file whose
 * manifest cannot be found so (chunks out of bounds, a damaged tag) is C2paError, as from c2pa-rs.
 */
async function embeddedManifest(filePath: string, mimeType: SignableMimeType): Promise<{ store: Uint8Array } | { standIn: Uint8Array }> {
  try {
    return await withManifestSpot(filePath, mimeType, async (spot) => {
      const store = await spot.store();
      return store ? { store } : { standIn: await spot.standIn({ manifest: false }) };
    });
  } catch (err) {
    if (err instanceof AudioUnsignableError) throw new C2paError(`the file's C2PA data cannot be read: ${err.message}`, { cause: err });
    throw err;
  }
}

/** The store's active manifest's c2pa.hash.data assertion (crJSON), read by c2pa-rs (structure only); undefined without one. */
async function activeDataHash(store: Uint8Array): Promise<DataHashAssertion | undefined> {
  const manifest = await activeCrJsonManifest(store);
  const found = Object.entries(manifest?.assertions ?? {}).find(([label]) => /^c2pa\.hash\.data(?:__\d+)?$/.test(label));
  return found?.[1] as DataHashAssertion | undefined;
}

/**
 * Whether the file at `filePath` hashes to the data hash of the store's active manifest; undefined when it has none or
 * one the check cannot judge. Exclusions past the check's bounds (BINDING_LIMITS) do not hash: false.
 */
export async function storeDataHashMatches(store: Uint8Array, filePath: string): Promise<boolean | undefined> {
  const assertion = await activeDataHash(store);
  return assertion && dataHashMatches(filePath, assertion).catch((err: unknown) => {
    if (err instanceof BindingLimitExceeded) return false;
    throw err;
  });
}

/** readAssetFile for a WAV, MP3 or FLAC file of any size, with the manifest store it read (absent without one). */
export async function readDataHashedFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<{ report: VerificationReport; store?: Uint8Array }> {
  const embedded = await embeddedManifest(filePath, mimeType);
  if ('standIn' in embedded) return { report: await readAsset(embedded.standIn, mimeType, options) };
  return { report: await readDetachedManifest(embedded.store, filePath, options, { kind: 'embedded', url: null, asset_checked: true }), store: embedded.store };
}

/**
 * c2pa-rs's crJSON of a WAV, MP3 or FLAC file of any size: of its manifest store, read as a sidecar, with c2pa-rs's
 * verdict on the data hash replaced by the check against the file. Undefined without a manifest; `refused`: the status
 * code c2pa-rs refused the manifest with.
 */
export async function crJsonOfDataHashedFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<string | { refused: string } | undefined> {
  const embedded = await embeddedManifest(filePath, mimeType);
  if ('standIn' in embedded) return crJsonOf(embedded.standIn, mimeType, options);
  const crJson = await crJsonOf(embedded.store, MANIFEST_STORE_TYPE, options);
  const matches = typeof crJson === 'string' ? await storeDataHashMatches(embedded.store, filePath) : undefined;
  if (typeof crJson !== 'string' || matches === undefined) return crJson;
  return withCrJsonBindingVerdict(crJson, 'dataHash', matches);
}
