import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BINDING_LIMITS, BindingLimitExceeded, counted } from './binding-limits.js';
import { BmffFileReader, BmffMalformed, BmffTooManyBoxes, bmffBoxTree, type BmffBox } from './bmff-walk.js';
import { bytesOf, isCount, optional, type CrJsonBytes } from './crjson-values.js';
import { digestOf, hashAlgorithm } from './data-hash.js';

/**
 * The c2pa.hash.bmff check c2pa-rs makes on an embedded manifest (BmffHash::verify_stream_hash with its box walk,
 * bmff_io.rs build_bmff_tree and bmff_to_jumbf_exclusions, and hash_utils.rs hash_stream_by_alg), made here for a
 * manifest that is not in the file: see data-hash.ts for why. Ported to give c2pa-rs's verdict, quirks included
 * (flags compared as c2pa-rs packs them, offsets of partly excluded boxes), since a verdict that differs from
 * c2pa-rs's on an embedded copy of the same file would be a second opinion, not the check.
 *
 * The file is read in place, box headers (bmff-walk.ts) and hashed ranges only. A file c2pa-rs cannot walk (a box
 * past its parent's or the file's end, a header cut short) is a mismatch, as c2pa-rs reports it.
 */

/** One entry of the assertion's exclusions (c2pa-rs ExclusionsMap). */
export interface BmffExclusion {
  xpath: string;
  length?: number | null;
  data?: { offset: number; value: CrJsonBytes }[] | null;
  subset?: { offset: number; length: number }[] | null;
  version?: number | null;
  flags?: CrJsonBytes | null;
  exact?: boolean | null;
}

/** A c2pa.hash.bmff(.v2/.v3) assertion as c2pa-rs's crJSON writes it. */
export interface BmffHashAssertion {
  exclusions?: BmffExclusion[];
  alg?: string;
  /** "b64'...'" in crJSON. */
  hash?: string;
  /** Merkle trees over mdat chunks or fragments: c2pa-rs writes them only when told to (merkle_tree_chunk_size_in_kb). */
  merkle?: unknown[];
}

export interface BmffHashOptions {
  /** The assertion's version, from its label: 1 for c2pa.hash.bmff; 2 and up hash the offsets of top-level boxes. */
  version: number;
  /** The claim's alg, used when the assertion names none (as c2pa-rs does). */
  claimAlg?: string;
}

/** A range of the file to leave out. */
interface Range {
  start: number;
  length: number;
}

/** The exclusions as byte ranges (in c2pa-rs's order), and the top-level boxes' offsets to hash (v2 and up), ascending. */
interface Exclusions {
  ranges: Range[];
  markers: number[];
}

const isBytes = (v: unknown): boolean => bytesOf(v) !== undefined;
const listOf = (v: unknown, check: (e: Record<string, unknown>) => boolean) =>
  Array.isArray(v) && v.every((e) => typeof e === 'object' && e !== null && check(e as Record<string, unknown>));

/** Exclusions of the shape c2pa-rs would deserialize (a sidecar is anyone's bytes: nothing else is walked). */
function wellFormed(exclusions: unknown): exclusions is BmffExclusion[] {
  return listOf(exclusions, (e) =>
    typeof e.xpath === 'string' &&
    optional(e.length, isCount) &&
    optional(e.data, (d) => listOf(d, (m) => isCount(m.offset) && isBytes(m.value))) &&
    optional(e.subset, (d) => listOf(d, (m) => isCount(m.offset) && isCount(m.length))) &&
    optional(e.version, isCount) &&
    optional(e.flags, isBytes) &&
    optional(e.exact, (x) => typeof x === 'boolean'),
  );
}

/** The boxes of the file as c2pa-rs walks them; past the box limit for its size (maxBmffBoxes), BindingLimitExceeded. */
async function boxTree(file: BmffFileReader): Promise<Map<string, BmffBox[]>> {
  try {
    return await bmffBoxTree(file);
  } catch (err) {
    if (err instanceof BmffTooManyBoxes) throw new BindingLimitExceeded('file', `${err.message}, the most whose binding is checked`);
    throw err;
  }
}

/** Refuses exclusions that would check more boxes than BINDING_LIMITS.bmffExclusionChecks (counted before any is read). */
function assertChecksWithinLimit(tree: Map<string, BmffBox[]>, exclusions: readonly BmffExclusion[]): void {
  let checks = 0;
  for (const e of exclusions) checks += (tree.get(e.xpath)?.length ?? 0) * (1 + (e.data?.length ?? 0) + (e.subset?.length ?? 0));
  if (checks > BINDING_LIMITS.bmffExclusionChecks) {
    throw new BindingLimitExceeded('assertion', `the exclusions of the manifest's BMFF hash would check more than ${counted(BINDING_LIMITS.bmffExclusionChecks)} boxes`);
  }
}

/** c2pa-rs's bmff_to_jumbf_exclusions: the assertion's exclusions as byte ranges, and (v2 and up) the offset markers. */
async function exclusionRanges(file: BmffFileReader, exclusions: readonly BmffExclusion[], hashOffsets: boolean): Promise<Exclusions> {
  const tree = await boxTree(file);
  assertChecksWithinLimit(tree, exclusions);
  const ranges: Range[] = [];
  const excludedWhole = new Set<number>();
  for (const exclusion of exclusions) {
    const flags = bytesOf(exclusion.flags);
    // c2pa-rs packs the three flag bytes into the top of a u32 and compares that with the box's 24-bit flags.
    const desired = flags && flags.length >= 3 ? ((flags[0]! << 24) | (flags[1]! << 16) | (flags[2]! << 8)) >>> 0 : 0;
    const exact = exclusion.exact ?? true;
    const data = exclusion.data?.map(({ offset, value }) => ({ offset, expected: bytesOf(value)! }));
    for (const box of tree.get(exclusion.xpath) ?? []) {
      if (exclusion.length != null && exclusion.length !== box.size) continue;
      if (exclusion.version != null && box.version !== undefined && exclusion.version !== box.version) continue;
      if (flags && box.flags !== undefined && (exact ? desired !== box.flags : ((desired | box.flags) >>> 0) !== desired)) continue;
      if (data) {
        let same = true;
        for (const { offset, expected } of data) {
          if (!(await file.exact(box.offset + offset, expected.length)).equals(expected)) {
            same = false;
            break;
          }
        }
        if (!same) continue;
      }
      if (exclusion.subset) {
        for (const { offset, length } of exclusion.subset) {
          if (offset > box.size) continue;
          ranges.push({ start: box.offset + offset, length: length === 0 ? box.size - offset : Math.min(length, box.size - offset) });
        }
      } else {
        ranges.push({ start: box.offset, length: box.size });
        // A top-level box excluded whole has no offset hashed (no box below the top starts where a top-level one does).
        excludedWhole.add(box.offset);
      }
    }
  }
  if (!hashOffsets) return { ranges, markers: [] };
  // Paths with a single "/" are top-level (counted as c2pa-rs counts them).
  const topLevel = [...tree].filter(([path]) => path.split('/').length === 2).flatMap(([, boxes]) => boxes.map((b) => b.offset));
  return { ranges, markers: topLevel.filter((offset) => !excludedWhole.has(offset)).sort((a, b) => a - b) };
}

/** [from, to] inclusive, as c2pa-rs's RangeInclusive; `marker`: hash the offset `from` here, not bytes. */
type Span = [from: number, to: number, marker?: true];

/** The bytes of [0, size) that no range covers, as maximal runs in order (`sorted`: by start). */
function uncovered(size: number, sorted: readonly Range[]): Span[] {
  const runs: Span[] = [];
  let next = 0;
  for (const { start, length } of sorted) {
    if (length === 0) continue;
    if (start > next && next < size) runs.push([next, Math.min(start, size) - 1]);
    next = Math.max(next, start + length);
  }
  if (next < size) runs.push([next, size - 1]);
  return runs;
}

/**
 * c2pa-rs's hash_stream_by_alg (exclusion form): the spans hashed, in order. The exclusions' ranges and the markers
 * are sorted once and swept together (O(n log n)).
 */
function hashedSpans(size: number, { ranges, markers }: Exclusions): Span[] | undefined {
  const sorted = [...ranges].sort((a, b) => a.start - b.start); // stable, as c2pa-rs's sort
  // c2pa-rs checks only the range that starts last against the file's length; markers come after the exclusions.
  const lastRange = sorted.at(-1);
  const lastMarker = markers.at(-1);
  const last = lastMarker !== undefined && (lastRange === undefined || lastMarker >= lastRange.start) ? { start: lastMarker, length: 1 } : lastRange;
  if (!last) return [[0, size - 1]];
  if (size < last.start + last.length) return undefined; // "the exclusion range exceed the data length"
  const included = uncovered(size, sorted);
  if (!markers.length) return included;
  // Offsets in included bytes split them there. Offsets of boxes whose first byte is excluded (by a subset) are hashed
  // where they fall, if between the first and the last included byte.
  const before = included[0]?.[0] ?? 0;
  const after = included.at(-1)?.[1] ?? size - 1;
  const spans: Span[] = [];
  let i = 0;
  const outside = (bound: number) => {
    for (; i < markers.length && markers[i]! < bound; i += 1) if (markers[i]! > before && markers[i]! < after) spans.push([markers[i]!, markers[i]!, true]);
  };
  for (const [a, b] of included) {
    outside(a);
    let from = a;
    for (; i < markers.length && markers[i]! <= b; i += 1) {
      const offset = markers[i]!;
      if (offset > from) spans.push([from, offset - 1]);
      spans.push([offset, offset, true]);
      from = offset;
    }
    spans.push([from, b]);
  }
  outside(Infinity);
  return spans;
}

async function hashSpans(file: BmffFileReader, spans: readonly Span[], hash: Hash, markers: ReadonlySet<number>): Promise<void> {
  const offset = Buffer.alloc(8);
  for (const [from, to] of spans) {
    // c2pa-rs takes any one-byte span at a marked offset for the marker.
    if (from === to && markers.has(from)) {
      offset.writeBigUInt64BE(BigInt(from));
      hash.update(offset);
      continue;
    }
    for await (const chunk of file.chunks(from, to + 1)) hash.update(chunk);
  }
}

/**
 * The digest c2pa-rs's hash_stream_by_alg gives the file for these exclusions (with `hashOffsets`, as v2 and later
 * hash them: the offset of every top-level box not excluded whole); undefined where c2pa-rs fails to hash it (an
 * exclusion past the end of the file). A file c2pa-rs cannot walk throws BmffMalformed.
 */
export async function bmffDigest(file: BmffFileReader, exclusions: readonly BmffExclusion[], options: { alg: string; hashOffsets: boolean }): Promise<Buffer | undefined> {
  if (file.size < 1) return undefined;
  const found = await exclusionRanges(file, exclusions, options.hashOffsets);
  const spans = hashedSpans(file.size, found);
  if (!spans) return undefined;
  const hash = createHash(options.alg);
  await hashSpans(file, spans, hash, new Set(found.markers));
  return hash.digest();
}

/**
 * The exclusions of an assertion, when they have the shape c2pa-rs deserializes (else undefined: not judged here).
 * More than BINDING_LIMITS.bmffExclusions throws BindingLimitExceeded.
 */
export function exclusionsOf(assertion: Pick<BmffHashAssertion, 'exclusions'>): BmffExclusion[] | undefined {
  const exclusions = assertion.exclusions ?? [];
  if (Array.isArray(exclusions) && exclusions.length > BINDING_LIMITS.bmffExclusions) {
    throw new BindingLimitExceeded('assertion', `the manifest's BMFF hash lists ${counted(exclusions.length)} exclusions, more than the ${counted(BINDING_LIMITS.bmffExclusions)} checked`);
  }
  return wellFormed(exclusions) ? exclusions : undefined;
}

/**
 * Whether the file hashes to the assertion's digest as c2pa-rs computes it; undefined when this check cannot judge
 * it: an algorithm or value it does not know, no file-level hash, or Merkle trees (c2pa-rs writes them only when
 * configured to; when the file-level hash is there and fails, that is still a mismatch). Past BINDING_LIMITS (the
 * file's boxes, the exclusions and the box checks they make) it throws BindingLimitExceeded instead of reading on. A
 * fragmented MP4's Merkle trees are checked segment by segment (bmff-fragment-check.ts).
 */
export async function bmffHashMatches(filePath: string, assertion: BmffHashAssertion, options: BmffHashOptions = { version: 2 }): Promise<boolean | undefined> {
  const alg = hashAlgorithm(assertion.alg ?? options.claimAlg ?? 'sha256');
  const expected = digestOf(assertion.hash);
  if (!alg || !expected) return undefined;
  const exclusions = exclusionsOf(assertion);
  if (!exclusions) return undefined;
  const handle = await open(filePath, 'r');
  try {
    const file = new BmffFileReader(handle, (await handle.stat()).size);
    const digest = await bmffDigest(file, exclusions, { alg, hashOffsets: options.version > 1 });
    if (!digest?.equals(expected)) return false;
    return assertion.merkle ? undefined : true;
  } catch (err) {
    if (err instanceof BmffMalformed) return false;
    throw err;
  } finally {
    await handle.close();
  }
}
