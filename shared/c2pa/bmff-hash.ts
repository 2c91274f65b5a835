import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BmffFileReader, BmffMalformed, bmffBoxTree } from './bmff-walk.js';
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

const CHUNK = 1024 * 1024;

/** A range of the file to leave out; `marker`: not an exclusion but the place to hash a top-level box's offset. */
interface Range {
  start: number;
  length: number;
  marker?: boolean;
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

/** c2pa-rs's bmff_to_jumbf_exclusions: the assertion's exclusions as byte ranges, and (v2 and up) the offset markers. */
async function exclusionRanges(file: BmffFileReader, exclusions: readonly BmffExclusion[], hashOffsets: boolean): Promise<Range[]> {
  const tree = await bmffBoxTree(file);
  // Paths with a single "/" are top-level (counted as c2pa-rs counts them).
  const topLevel = [...tree].filter(([path]) => path.split('/').length === 2).flatMap(([, boxes]) => boxes.map((b) => b.offset)).sort((a, b) => a - b);
  const ranges: Range[] = [];
  for (const exclusion of exclusions) {
    const flags = bytesOf(exclusion.flags);
    for (const box of tree.get(exclusion.xpath) ?? []) {
      if (exclusion.length != null && exclusion.length !== box.size) continue;
      if (exclusion.version != null && box.version !== undefined && exclusion.version !== box.version) continue;
      if (flags && box.flags !== undefined) {
        // c2pa-rs packs the three flag bytes into the top of a u32 and compares that with the box's 24-bit flags.
        const desired = flags.length >= 3 ? ((flags[0]! << 24) | (flags[1]! << 16) | (flags[2]! << 8)) >>> 0 : 0;
        const exact = exclusion.exact ?? true;
        if (exact ? desired !== box.flags : ((desired | box.flags) >>> 0) !== desired) continue;
      }
      if (exclusion.data) {
        let same = true;
        for (const { offset, value } of exclusion.data) {
          const expected = bytesOf(value)!;
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
        // A top-level box excluded whole has no offset hashed.
        const at = topLevel.indexOf(box.offset);
        if (at >= 0) topLevel.splice(at, 1);
      }
    }
  }
  if (hashOffsets) for (const offset of topLevel) ranges.push({ start: offset, length: 1, marker: true });
  return ranges;
}

/** [from, to] inclusive, as c2pa-rs's RangeInclusive; `marker`: hash the offset `from` here, not bytes. */
type Span = [from: number, to: number, marker?: true];

/** c2pa-rs's hash_stream_by_alg (exclusion form): the spans hashed, in order. */
function hashedSpans(size: number, exclusions: Range[]): Span[] | undefined {
  const sorted = [...exclusions].sort((a, b) => a.start - b.start);
  const last = sorted.at(-1);
  if (!last) return [[0, size - 1]];
  if (size < last.start + last.length) return undefined; // "the exclusion range exceed the data length"
  let included: Span[] = [[0, size - 1]];
  const markers: number[] = [];
  for (const range of sorted) {
    if (range.marker) {
      markers.push(range.start);
      continue;
    }
    if (range.length === 0) continue;
    const [from, to] = [range.start, range.start + range.length - 1];
    included = included.flatMap(([a, b]): Span[] => {
      if (to < a || from > b) return [[a, b]];
      return [...(from > a ? [[a, from - 1] as Span] : []), ...(to < b ? [[to + 1, b] as Span] : [])];
    });
  }
  if (!markers.length) return included;
  markers.sort((a, b) => a - b);
  const spans: Span[] = [];
  for (const range of included) {
    let current = range;
    for (const offset of markers) {
      if (offset < current[0] || offset > current[1]) continue;
      if (offset === current[0]) spans.push([offset, offset, true]);
      else {
        spans.push([current[0], offset - 1], [offset, offset, true]);
        current = [offset, current[1]];
      }
    }
    spans.push(current);
  }
  // Offsets of boxes whose first byte is excluded by a subset are hashed where they fall (not before or after all).
  const before = spans[0]?.[0] ?? 0;
  const after = spans.at(-1)?.[1] ?? size - 1;
  for (const offset of markers) {
    if (!spans.some(([a, b]) => offset >= a && offset <= b) && offset > before && offset < after) spans.push([offset, offset, true]);
  }
  return spans.sort((a, b) => a[0] - b[0]); // stable: a marker stays before the bytes that start at it
}

async function hashSpans(file: BmffFileReader, spans: readonly Span[], hash: Hash, markers: ReadonlySet<number>): Promise<void> {
  for (const [from, to] of spans) {
    // c2pa-rs takes any one-byte span at a marked offset for the marker.
    if (from === to && markers.has(from)) {
      const offset = Buffer.alloc(8);
      offset.writeBigUInt64BE(BigInt(from));
      hash.update(offset);
      continue;
    }
    for (let at = from; at <= to; at += CHUNK) hash.update(await file.exact(at, Math.min(CHUNK, to - at + 1)));
  }
}

/**
 * The digest c2pa-rs's hash_stream_by_alg gives the file for these exclusions (with `hashOffsets`, as v2 and later
 * hash them: the offset of every top-level box not excluded whole); undefined where c2pa-rs fails to hash it (an
 * exclusion past the end of the file). A file c2pa-rs cannot walk throws BmffMalformed.
 */
export async function bmffDigest(file: BmffFileReader, exclusions: readonly BmffExclusion[], options: { alg: string; hashOffsets: boolean }): Promise<Buffer | undefined> {
  if (file.size < 1) return undefined;
  const ranges = await exclusionRanges(file, exclusions, options.hashOffsets);
  const spans = hashedSpans(file.size, ranges);
  if (!spans) return undefined;
  const hash = createHash(options.alg);
  await hashSpans(file, spans, hash, new Set(ranges.filter((r) => r.marker).map((r) => r.start)));
  return hash.digest();
}

/** The exclusions of an assertion, when they have the shape c2pa-rs deserializes (else undefined: not judged here). */
export function exclusionsOf(assertion: Pick<BmffHashAssertion, 'exclusions'>): BmffExclusion[] | undefined {
  const exclusions = assertion.exclusions ?? [];
  return wellFormed(exclusions) ? exclusions : undefined;
}

/**
 * Whether the file hashes to the assertion's digest as c2pa-rs computes it; undefined when this check cannot judge
 * it: an algorithm or value it does not know, no file-level hash, or Merkle trees (c2pa-rs writes them only when
 * configured to; when the file-level hash is there and fails, that is still a mismatch). A fragmented MP4's Merkle
 * trees are checked fragment by fragment (bmff-fragment-check.ts).
 */
export async function bmffHashMatches(filePath: string, assertion: BmffHashAssertion, options: BmffHashOptions = { version: 2 }): Promise<boolean | undefined> {
  const alg = hashAlgorithm(assertion.alg ?? options.claimAlg ?? 'sha256');
  const expected = digestOf(assertion.hash);
  const exclusions = exclusionsOf(assertion);
  if (!alg || !expected || !exclusions) return undefined;
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
