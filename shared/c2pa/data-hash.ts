import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

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

/**
 * Whether the file's bytes, the exclusions left out, hash to the assertion's digest; undefined when the assertion
 * cannot be judged (an algorithm or a digest this check does not know). Exclusions that are not a list of byte ranges
 * (a sidecar is anyone's) cannot describe the file: a mismatch.
 */
export async function dataHashMatches(filePath: string, assertion: DataHashAssertion): Promise<boolean | undefined> {
  const alg = hashAlgorithm(assertion.alg ?? 'sha256');
  const expected = digestOf(assertion.hash);
  if (!alg || !expected) return undefined;
  const given: unknown = assertion.exclusions ?? [];
  if (!Array.isArray(given) || !given.every(isRange)) return false;
  const exclusions = [...given].sort((a, b) => a.start - b.start);
  const hash = createHash(alg);
  let position = 0;
  for await (const chunk of createReadStream(filePath) as AsyncIterable<Buffer>) {
    const end = position + chunk.length;
    let from = position;
    for (const { start, length } of exclusions) {
      if (start + length <= from || start >= end) continue;
      if (start > from) hash.update(chunk.subarray(from - position, start - position));
      from = Math.min(end, start + length);
    }
    if (from < end) hash.update(chunk.subarray(from - position));
    position = end;
  }
  return hash.digest().equals(expected);
}
