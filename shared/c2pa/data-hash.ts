import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BINDING_LIMITS, BindingLimitExceeded, counted } from './binding-limits.js';
import { readAhead } from './file-handle-io.js';

/**
 * The c2pa.hash.data check c2pa-rs makes on an embedded manifest, made here for a manifest that is not in the file (a
 * sidecar, a remote manifest): c2pa-wasm can read a manifest store alone or a file with its manifest inside, but has
 * no reader for a store together with its asset (c2pa-rs's Reader::from_manifest_data_and_stream is not exported).
 * BMFF files (MP4, MOV, M4A, HEIC, AVIF) are bound by c2pa.hash.bmff instead: bmff-hash.ts.
 */

/** A c2pa.hash.data assertion as c2pa-rs's crJSON writes it. */
export interface DataHashAssertion {
  alg?: string;
  /** "b64'...'" in crJSON. */
  hash?: string;
  exclusions?: { start: number; length: number }[];
}

const HASH_ALGORITHMS = new Set(['sha256', 'sha384', 'sha512']);

/** The hash algorithm of a hard binding when c2pa-rs knows it (C2PA's names are Node's), else undefined. */
export const hashAlgorithm = (name: string): string | undefined => (HASH_ALGORITHMS.has(name) ? name : undefined);

/** The digest crJSON writes as "b64'...'", as bytes (undefined when it is not in that form). */
export function digestOf(value: string | undefined): Buffer | undefined {
  const b64 = value && /^b64'([A-Za-z0-9+/=]*)'$/.exec(value)?.[1];
  return b64 ? Buffer.from(b64, 'base64') : undefined;
}

const isRange = (e: unknown): e is { start: number; length: number } =>
  typeof e === 'object' && e !== null && [(e as { start?: unknown }).start, (e as { length?: unknown }).length].every((n) => Number.isSafeInteger(n) && (n as number) >= 0);

/** The exclusions as disjoint ranges [start, end), in order (overlapping and touching ones merged). */
function merged(exclusions: readonly { start: number; length: number }[]): [start: number, end: number][] {
  const out: [number, number][] = [];
  for (const { start, length } of [...exclusions].sort((a, b) => a.start - b.start)) {
    if (length === 0) continue;
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], start + length);
    else out.push([start, start + length]);
  }
  return out;
}

/**
 * Whether the file's bytes, the exclusions left out, hash to the assertion's digest; undefined when the assertion
 * cannot be judged (an algorithm or a digest this check does not know). Exclusions that are not a list of byte ranges
 * (a sidecar is anyone's) cannot describe the file: a mismatch. More than BINDING_LIMITS.dataHashExclusions throw
 * BindingLimitExceeded. The exclusions are sorted and merged once, then passed in one sweep with the file.
 */
export async function dataHashMatches(filePath: string, assertion: DataHashAssertion): Promise<boolean | undefined> {
  const alg = hashAlgorithm(assertion.alg ?? 'sha256');
  const expected = digestOf(assertion.hash);
  if (!alg || !expected) return undefined;
  const given: unknown = assertion.exclusions ?? [];
  if (Array.isArray(given) && given.length > BINDING_LIMITS.dataHashExclusions) {
    throw new BindingLimitExceeded('assertion', `the manifest's data hash lists ${counted(given.length)} exclusions, more than the ${counted(BINDING_LIMITS.dataHashExclusions)} checked`);
  }
  if (!Array.isArray(given) || !given.every(isRange)) return false;
  const excluded = merged(given);
  const hash = createHash(alg);
  let position = 0;
  let next = 0; // the first range that does not end before `position`
  const handle = await open(filePath, 'r');
  try {
    for await (const chunk of readAhead(handle, 0, (await handle.stat()).size)) {
      const end = position + chunk.length;
      let from = position;
      for (; next < excluded.length && excluded[next]![0] < end; next += 1) {
        const [start, stop] = excluded[next]!;
        if (start > from) hash.update(chunk.subarray(from - position, start - position));
        from = Math.max(from, Math.min(end, stop));
        if (stop > end) break; // it goes on into the next chunk
      }
      if (from < end) hash.update(chunk.subarray(from - position));
      position = end;
    }
  } finally {
    await handle.close();
  }
  return hash.digest().equals(expected);
}
