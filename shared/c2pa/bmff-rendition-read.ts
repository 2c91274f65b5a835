import { embeddedBmffManifest, activeBmffHash } from './bmff-read.js';
import { segmentCheck } from './bmff-fragment-check.js';
import { reportsAgainstSegments } from './detached-binding.js';
import type { SignableMimeType } from './media-type.js';
import { readAsset } from './read-asset.js';
import { isRefused, MANIFEST_STORE_TYPE, openReader } from './reader-open.js';
import { trustSettings, type ReadOptions } from './settings.js';
import { reportOf, type VerificationReport } from './verification-report.js';

/**
 * Reads a fragmented MP4 rendition (an init segment and its media segments) in bounded memory: the manifest store is
 * read out of the init segment and validated by c2pa-rs (claim, signature, trust), and each segment is checked against
 * its c2pa.hash.bmff Merkle tree as c2pa-rs's fromBlobFragment checks one (bmff-fragment-check.ts): one verdict per
 * segment, and the rendition's (every segment matching). An init segment without a manifest reads as c2pa-rs reads it.
 */
export async function readRendition(
  initPath: string,
  mimeType: SignableMimeType,
  segmentPaths: readonly string[],
  options: ReadOptions,
): Promise<{ report: VerificationReport; segments: VerificationReport[]; store?: Uint8Array }> {
  const embedded = await embeddedBmffManifest(initPath);
  if ('standIn' in embedded) {
    const report = await readAsset(embedded.standIn, mimeType, options);
    return { report, segments: segmentPaths.map(() => report) };
  }
  const { store } = embedded;
  const source = { kind: 'embedded' as const, url: null, asset_checked: true };
  const found = await activeBmffHash(store);
  const check = found && (await segmentCheck(initPath, found.assertion, found.options));
  const reader = await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options));
  if (!reader || isRefused(reader)) {
    const report = reportOf(reader, source);
    return { report, segments: segmentPaths.map(() => report), store };
  }
  return { ...(await reportsAgainstSegments(reader, initPath, segmentPaths, check, source)), store };
}
