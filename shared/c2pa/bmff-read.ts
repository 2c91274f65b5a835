import { BmffUnsignableError, manifestStoreOf, standInOf, withBmffFile } from './bmff-c2pa-boxes.js';
import { BindingLimitExceeded } from './binding-limits.js';
import type { CheckedBinding } from './detached-binding.js';
import { bmffHashMatches, type BmffHashAssertion, type BmffHashOptions } from './bmff-hash.js';
import { C2paError } from './errors.js';
import type { SignableMimeType } from './media-type.js';
import { crJsonOf, readAsset, readDetachedManifest } from './read-asset.js';
import { activeCrJsonManifest, MANIFEST_STORE_TYPE } from './reader-open.js';
import type { ReadOptions } from './settings.js';
import type { VerificationReport } from './verification-report.js';

/**
 * Reads the manifest embedded in an MP4, M4V, MOV or M4A file of any size in bounded memory, where c2pa-wasm would
 * hold the whole file in its WASM memory (4 GiB at most) several times over: the manifest store is read out of the
 * file's C2PA box (a few kilobytes to megabytes), c2pa-rs validates the claim, its signature and its assertions as it
 * does for a sidecar, and the BMFF hash is checked against the file by streaming (bmff-hash.ts, c2pa-rs's check
 * ported). A file without a C2PA box is handed to c2pa-rs as its stand-in (ftyp and XMP boxes): no manifest, or the
 * remote manifest its XMP names.
 */

/**
 * What a BMFF file carries: its manifest store, or (without one) the stand-in c2pa-rs reads instead. A file c2pa-rs
 * could not read either (its boxes cannot be walked, an update manifest) is C2paError, as from c2pa-rs.
 */
export async function embeddedBmffManifest(filePath: string): Promise<{ store: Uint8Array } | { standIn: Uint8Array }> {
  try {
    return await withBmffFile(filePath, async (file, top) =>
      top.manifestBox ? { store: new Uint8Array(await manifestStoreOf(file, top.manifestBox)) } : { standIn: await standInOf(file, top, { manifest: false }) },
    );
  } catch (err) {
    if (err instanceof BmffUnsignableError) throw new C2paError(`the file's C2PA data cannot be read: ${err.message}`, { cause: err });
    throw err;
  }
}

/** The active manifest's BMFF hash assertion in a manifest store: its data, version (from its label) and the claim's alg. */
export interface ActiveBmffHash {
  assertion: BmffHashAssertion;
  options: BmffHashOptions;
}

/** The store's active manifest's c2pa.hash.bmff(.vN) assertion, read by c2pa-rs (structure only); undefined without one. */
export async function activeBmffHash(store: Uint8Array): Promise<ActiveBmffHash | undefined> {
  const manifest = await activeCrJsonManifest(store);
  for (const [label, data] of Object.entries(manifest?.assertions ?? {})) {
    const bmff = /^c2pa\.hash\.bmff(?:\.v(\d+))?(?:__\d+)?$/.exec(label);
    if (bmff) return { assertion: data as BmffHashAssertion, options: { version: Number(bmff[1] ?? 1), claimAlg: (manifest?.['claim.v2'] ?? manifest?.claim)?.alg } };
  }
  return undefined;
}

/**
 * Whether the file at `filePath` hashes to the BMFF hash of the store's active manifest (c2pa-rs's check, bmff-hash.ts);
 * undefined when the manifest has no BMFF hash or one that check cannot judge. An assertion past the check's bounds
 * (BINDING_LIMITS: its exclusions) does not hash: false.
 */
export async function storeBmffHashMatches(store: Uint8Array, filePath: string): Promise<boolean | undefined> {
  const found = await activeBmffHash(store);
  return found && bmffHashMatches(filePath, found.assertion, found.options).catch((err: unknown) => {
    if (err instanceof BindingLimitExceeded) return false;
    throw err;
  });
}

/**
 * readAssetFile for a BMFF file of any size (a file c2pa-rs cannot walk is BmffUnsignableError), with the manifest
 * store it read (absent without one). `checked`: a binding whose hash was checked already (readDetachedManifest).
 */
export async function readBmffFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions, checked?: CheckedBinding): Promise<{ report: VerificationReport; store?: Uint8Array }> {
  const embedded = await embeddedBmffManifest(filePath);
  if ('standIn' in embedded) return { report: await readAsset(embedded.standIn, mimeType, options) };
  return { report: await readDetachedManifest(embedded.store, filePath, options, { kind: 'embedded', url: null, asset_checked: true }, checked), store: embedded.store };
}

interface StatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}
type CrJsonResults = { success?: StatusEntry[]; informational?: StatusEntry[]; failure?: StatusEntry[] };

/**
 * c2pa-rs's crJSON of a manifest store read apart from its file, with c2pa-rs's verdict on the hard binding
 * (assertion.<stem>.match or .mismatch, from hashing the store alone, which means nothing) replaced by `matches`, the
 * check against the file.
 */
export function withCrJsonBindingVerdict(crJson: string, stem: string, matches: boolean): string {
  const parsed = JSON.parse(crJson) as { manifests?: { validationResults?: CrJsonResults }[] };
  // The active manifest is the first in crJSON.
  const results = parsed.manifests?.[0]?.validationResults;
  if (!results) return crJson;
  const pattern = new RegExp(`^assertion\\.${stem}\\.(match|mismatch)$`);
  const verdicts = [...(results.success ?? []), ...(results.failure ?? [])].filter((e) => pattern.test(e.code));
  const valid = stem === 'bmffHash' ? 'BMFF hash valid' : 'data hash valid';
  const ours = verdicts.map((e) => ({ code: `assertion.${stem}.${matches ? 'match' : 'mismatch'}`, url: e.url, explanation: matches ? valid : `the file does not hash to the manifest's ${stem === 'bmffHash' ? 'BMFF' : 'data'} hash` }));
  const others = (list?: StatusEntry[]) => (list ?? []).filter((e) => !verdicts.includes(e));
  results.success = [...others(results.success), ...(matches ? ours : [])];
  results.failure = [...others(results.failure), ...(matches ? [] : ours)];
  return JSON.stringify(parsed);
}

/**
 * c2pa-rs's crJSON of a BMFF file of any size: of its manifest store, read as a sidecar, with c2pa-rs's verdict on the
 * BMFF hash (from hashing the store alone, which means nothing) replaced by the check against the file. Undefined
 * without a manifest; `refused`: the status code c2pa-rs refused the manifest with.
 */
export async function crJsonOfBmffFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<string | { refused: string } | undefined> {
  const embedded = await embeddedBmffManifest(filePath);
  if ('standIn' in embedded) return crJsonOf(embedded.standIn, mimeType, options);
  const crJson = await crJsonOf(embedded.store, MANIFEST_STORE_TYPE, options);
  const matches = typeof crJson === 'string' ? await storeBmffHashMatches(embedded.store, filePath) : undefined;
  if (typeof crJson !== 'string' || matches === undefined) return crJson;
  return withCrJsonBindingVerdict(crJson, 'bmffHash', matches);
}
