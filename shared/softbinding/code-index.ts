/**
 * The soft-binding code index: 64-bit image fingerprints (ISCC Image-Code bodies) stored with the signed file they
 * belong to, looked up by content: every stored code within Hamming distance T of a query code.
 *
 * Multi-index hashing (MIH) over four 16-bit bands (table and indexes: migrations/009_soft_bindings.ts):
 *
 * - Pigeonhole: if d(a, b) <= T and T = 4r + k (0 <= k < 4), then one of the first k+1 bands differs in at most r
 *   bits, or one of the other bands in at most r-1 bits (otherwise d >= (k+1)(r+1) + (3-k)r = T+1). So band i is
 *   probed for every value within radius r_i of the query's band i (bandRadii); a radius of -1 skips the band.
 * - One statement: per band, an index-only scan of (b_i, code) for those band values that keeps the codes within T
 *   (bit_count of the XOR, evaluated on the index tuple); the union of those codes (few) is then read from the
 *   table through the code index, discoverable rows only, ordered by distance.
 * - The band values are sent as one XOR-mask array per radius (the same for every query) and expanded in SQL
 *   (`ARRAY(SELECT band # m FROM unnest(masks))`): the planner then does not estimate thousands of array elements
 *   one by one (about 2 ms of planning at T = 16, 7 ms at T = 20 with literal arrays).
 *
 * Why four bands of 16 bits (bench/softbinding/lookup.ts measures them): a lookup costs index probes (one btree
 * descent per band value looked up, about 0.7 us in Postgres 15) plus candidates (index tuples read and checked,
 * about 0.08 us each). With 1M random codes a 16-bit band value holds about 15 codes; at T = 16 the probes number
 * 2517 + 3 * 697 = 4608 for about 73k candidates, about 13 ms of backend CPU. Measured side by side on 1M codes
 * (backend CPU per lookup): 5 bands of 13 bits (1019 probes, 134k candidates) is 7% cheaper at T = 16 and 20% at
 * T = 20 but 8% dearer at T = 12; 6 x 11 and 8 x 8 bits (fewer probes, 196k and 391k candidates) are 1.2x and 2x
 * dearer at T = 16; 3 x 21-22 bits (70k probes) 4x. Not worth a second set of indexes for large T.
 *
 * The public lookups only ever see discoverable rows: the band and code indexes are partial on discoverable, and
 * every query says so. findNearCodesInOrg is the organisation's own view, which may include its hidden rows.
 *
 * Codes are passed to Postgres as decimal strings and read back as text: the pg driver is set to parse int8 as a
 * JS number (shared/db/knex.ts), which would round 64-bit codes.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { decodeImageCode, hashToInt64 } from './iscc-codec.js';
import { ISCC_IMAGE_SOFT_BINDING_ALG } from './iscc-image.js';

export type Db = Knex | Knex.Transaction;

/** The only algorithm stored so far: the ISCC Image-Code v0 (64-bit body). */
export const SOFT_BINDING_ALG = ISCC_IMAGE_SOFT_BINDING_ALG;
export const BAND_COUNT = 4;
export const BAND_BITS = 16;
/** The largest maxDistance a lookup accepts (at 20, a lookup over 1M codes takes about 50 ms of CPU). */
export const MAX_DISTANCE = 20;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

const BAND_MASK = (1n << BigInt(BAND_BITS)) - 1n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT64_MIN = -(1n << 63n);
const UINT64_END = 1n << 64n;

export interface NewSoftBinding {
  /** Generated when absent. */
  id?: string;
  signedFileId: string;
  orgId: string;
  /** The 64-bit body, signed (as stored) or unsigned; it must be the body of `value`. */
  code: bigint;
  /** The ISCC string in canonical form, e.g. `ISCC:EEA4GQZQTY6J5DTH`. */
  value: string;
  alg?: typeof SOFT_BINDING_ALG;
  /** Default true. Lookups by content never return a non-discoverable row. */
  discoverable?: boolean;
}

export interface SoftBindingMatch {
  signedFileId: string;
  orgId: string;
  /** Signed 64-bit, as stored. */
  code: bigint;
  value: string;
  /** Hamming distance to the query code (0 for findByValue). */
  distance: number;
}

export interface NearCodesOptions {
  /** At most this many matches, nearest first (default 100, at most 1000). */
  limit?: number;
  /** Lookups by content only ever return discoverable rows; there is no other mode. */
  discoverableOnly: true;
}

export interface OrgNearCodesOptions {
  limit?: number;
  /**
   * Also the organisation's non-discoverable rows (default false). Those are not in the band indexes: they are
   * found by checking every hidden row of the organisation, so the cost grows with how many it has.
   */
  includeNonDiscoverable?: boolean;
}

/** A 64-bit code (signed or unsigned bigint) as the signed int64 Postgres stores. */
export function toInt64(code: bigint): bigint {
  if (typeof code !== 'bigint') throw new TypeError('code must be a bigint');
  if (code < INT64_MIN || code >= UINT64_END) throw new RangeError('code does not fit in 64 bits');
  return BigInt.asIntN(64, code);
}

/** The four 16-bit bands of a code, most significant first: the b0..b3 columns Postgres generates from it. */
export function bandsOf(code: bigint): [number, number, number, number] {
  const u = BigInt.asUintN(64, toInt64(code));
  return [Number((u >> 48n) & BAND_MASK), Number((u >> 32n) & BAND_MASK), Number((u >> 16n) & BAND_MASK), Number(u & BAND_MASK)];
}

/** Hamming distance of two 64-bit codes. */
export function codeDistance(a: bigint, b: bigint): number {
  let x = BigInt.asUintN(64, toInt64(a) ^ toInt64(b));
  let d = 0;
  while (x) {
    x &= x - 1n;
    d++;
  }
  return d;
}

function checkMaxDistance(maxDistance: number): void {
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_DISTANCE) {
    throw new RangeError(`maxDistance must be an integer from 0 to ${MAX_DISTANCE}`);
  }
}

function checkLimit(limit: number | undefined): number {
  const n = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  return n;
}

function checkUuid(value: unknown, name: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new TypeError(`${name} must be a UUID`);
  return value.toLowerCase();
}

/**
 * The search radius of each band for maxDistance (the refined pigeonhole above): T = 4r + k gives radius r to
 * bands 0..k and r-1 to the others (-1: not probed).
 */
export function bandRadii(maxDistance: number): number[] {
  checkMaxDistance(maxDistance);
  const r = Math.floor(maxDistance / BAND_COUNT);
  const k = maxDistance % BAND_COUNT;
  return Array.from({ length: BAND_COUNT }, (_, i) => (i <= k ? r : r - 1));
}

const maskCache = new Map<number, number[]>();

/** Every 16-bit XOR mask of at most `radius` set bits, ascending (band value XOR mask: the values within radius). */
export function bandMasks(radius: number): number[] {
  let masks = maskCache.get(radius);
  if (!masks) {
    masks = [];
    for (let m = 0; m < 1 << BAND_BITS; m++) {
      let bits = 0;
      for (let v = m; v && bits <= radius; v &= v - 1) bits++;
      if (bits <= radius) masks.push(m);
    }
    maskCache.set(radius, masks);
  }
  return masks;
}

const maskLiteralCache = new Map<number, string>();

/** bandMasks(radius) as a Postgres array literal (sent as one parameter). */
function maskLiteral(radius: number): string {
  let literal = maskLiteralCache.get(radius);
  if (!literal) {
    literal = `{${bandMasks(radius).join(',')}}`;
    maskLiteralCache.set(radius, literal);
  }
  return literal;
}

/** Index probes a lookup makes: the number of band values it looks up, over all bands. */
export function probeCount(maxDistance: number): number {
  return bandRadii(maxDistance).reduce((n, r) => n + (r < 0 ? 0 : bandMasks(r).length), 0);
}

interface SqlQuery {
  sql: string;
  bindings: Array<string | number>;
}

/**
 * The statement that finds the distinct discoverable codes within maxDistance of `code` through the band indexes
 * (a subquery returning one column, code). Exported for the benchmark and EXPLAIN; callers use findNearCodes.
 */
export function nearCodeCandidatesSql(code: bigint, maxDistance: number): SqlQuery {
  const q = toInt64(code).toString();
  const bands = bandsOf(code);
  const parts: string[] = [];
  const bindings: Array<string | number> = [];
  bandRadii(maxDistance).forEach((radius, i) => {
    if (radius < 0) return;
    parts.push(
      `SELECT code FROM soft_bindings WHERE discoverable` +
        ` AND b${i} = ANY(ARRAY(SELECT ?::integer # m FROM unnest(?::integer[]) AS m))` +
        ` AND bit_count((code # ?::bigint)::bit(64)) <= ?::integer`,
    );
    bindings.push(bands[i]!, maskLiteral(radius), q, maxDistance);
  });
  return { sql: parts.join(' UNION '), bindings };
}

const MATCH_COLUMNS = (q: string) =>
  `s.signed_file_id, s.org_id, s.code::text AS code, s.value, bit_count((s.code # ${q}::bigint)::bit(64))::integer AS distance`;

interface MatchRow {
  signed_file_id: string;
  org_id: string;
  code: string;
  value: string;
  distance: number | string;
}

function toMatch(row: MatchRow): SoftBindingMatch {
  return { signedFileId: row.signed_file_id, orgId: row.org_id, code: BigInt(row.code), value: row.value, distance: Number(row.distance) };
}

function rowsOf(result: unknown): MatchRow[] {
  return (result as { rows: MatchRow[] }).rows;
}

function discoverableNearSql(code: bigint, maxDistance: number, orgId: string | undefined): SqlQuery {
  const q = toInt64(code).toString();
  const candidates = nearCodeCandidatesSql(code, maxDistance);
  return {
    sql:
      `WITH candidates AS (${candidates.sql})` +
      ` SELECT ${MATCH_COLUMNS('?')} FROM soft_bindings s` +
      ` WHERE s.discoverable AND s.alg = ? AND s.code = ANY(ARRAY(SELECT code FROM candidates))` +
      (orgId ? ' AND s.org_id = ?' : ''),
    bindings: [...candidates.bindings, q, SOFT_BINDING_ALG, ...(orgId ? [orgId] : [])],
  };
}

/**
 * Every discoverable stored code within Hamming distance maxDistance (0..20) of `code`, nearest first (ties by
 * signed file id), at most `limit`.
 */
export async function findNearCodes(db: Db, code: bigint, maxDistance: number, options: NearCodesOptions): Promise<SoftBindingMatch[]> {
  if (options?.discoverableOnly !== true) throw new TypeError('lookups by content are discoverableOnly');
  checkMaxDistance(maxDistance);
  const limit = checkLimit(options.limit);
  const near = discoverableNearSql(code, maxDistance, undefined);
  const result = await db.raw(`${near.sql} ORDER BY distance, s.signed_file_id LIMIT ?`, [...near.bindings, limit]);
  return rowsOf(result).map(toMatch);
}

/**
 * An organisation's own codes within maxDistance of `code`, nearest first: its discoverable rows through the band
 * indexes and, with includeNonDiscoverable, its hidden rows too.
 */
export async function findNearCodesInOrg(db: Db, orgId: string, code: bigint, maxDistance: number, options: OrgNearCodesOptions = {}): Promise<SoftBindingMatch[]> {
  const org = checkUuid(orgId, 'orgId');
  checkMaxDistance(maxDistance);
  const limit = checkLimit(options.limit);
  const near = discoverableNearSql(code, maxDistance, org);
  if (!options.includeNonDiscoverable) {
    const result = await db.raw(`${near.sql} ORDER BY distance, s.signed_file_id LIMIT ?`, [...near.bindings, limit]);
    return rowsOf(result).map(toMatch);
  }
  const q = toInt64(code).toString();
  const result = await db.raw(
    `SELECT * FROM ((${near.sql}) UNION ALL (` +
      `SELECT ${MATCH_COLUMNS('?')} FROM soft_bindings s` +
      ` WHERE s.org_id = ? AND NOT s.discoverable AND s.alg = ? AND bit_count((s.code # ?::bigint)::bit(64)) <= ?::integer` +
      `)) AS m ORDER BY distance, signed_file_id LIMIT ?`,
    [...near.bindings, q, org, SOFT_BINDING_ALG, q, maxDistance, limit],
  );
  return rowsOf(result).map(toMatch);
}

/**
 * The discoverable rows whose ISCC string is `value` (any case, `ISCC:` prefix optional; canonicalised first).
 * Throws a RangeError for a string that is not a 64-bit ISCC Image-Code.
 */
export async function findByValue(db: Db, value: string, options: { limit?: number } = {}): Promise<SoftBindingMatch[]> {
  const limit = checkLimit(options.limit);
  const { code, canonical } = parseValue(value);
  // Every stored value is the canonical string of its code (insertSoftBinding checks), so the code index finds it.
  const result = await db.raw(
    `SELECT ${MATCH_COLUMNS('?')} FROM soft_bindings s` +
      ` WHERE s.discoverable AND s.alg = ? AND s.code = ?::bigint AND s.value = ?` +
      ` ORDER BY s.signed_file_id LIMIT ?`,
    [code.toString(), SOFT_BINDING_ALG, code.toString(), canonical, limit],
  );
  return rowsOf(result).map(toMatch);
}

function parseValue(value: string): { code: bigint; canonical: string } {
  if (typeof value !== 'string') throw new TypeError('value must be a string');
  let decoded: ReturnType<typeof decodeImageCode>;
  try {
    decoded = decodeImageCode(value);
  } catch (err) {
    throw new RangeError(`value is not an ISCC Image-Code: ${(err as Error).message}`);
  }
  if (decoded.bits !== 64) throw new RangeError(`value is a ${decoded.bits}-bit ISCC Image-Code; soft bindings store 64-bit ones`);
  return { code: hashToInt64(decoded.hash), canonical: decoded.iscc };
}

/**
 * Stores the code of one signed file (one per signed file and alg: a second one for the same file is a unique
 * violation). `value` must be the canonical ISCC string whose body is `code`. Returns the row id.
 */
export async function insertSoftBinding(db: Db, row: NewSoftBinding): Promise<string> {
  const id = row.id === undefined ? randomUUID() : checkUuid(row.id, 'id');
  const signedFileId = checkUuid(row.signedFileId, 'signedFileId');
  const orgId = checkUuid(row.orgId, 'orgId');
  const alg = row.alg ?? SOFT_BINDING_ALG;
  if (alg !== SOFT_BINDING_ALG) throw new RangeError(`unsupported soft-binding alg ${JSON.stringify(alg)}`);
  const code = toInt64(row.code);
  const { code: valueCode, canonical } = parseValue(row.value);
  if (canonical !== row.value) throw new RangeError(`value must be in canonical form (${canonical})`);
  if (valueCode !== code) throw new RangeError('code is not the body of value');
  if (row.discoverable !== undefined && typeof row.discoverable !== 'boolean') throw new TypeError('discoverable must be a boolean');
  await db('soft_bindings').insert({
    id,
    signed_file_id: signedFileId,
    org_id: orgId,
    alg,
    code: code.toString(),
    value: canonical,
    discoverable: row.discoverable ?? true,
  });
  return id;
}

/** Sets the discoverability of the organisation's soft bindings of these signed files (ids, or a subquery of them). */
export async function setSoftBindingsDiscoverable(db: Db, orgId: string, signedFileIds: string[] | Knex.QueryBuilder, discoverable: boolean): Promise<void> {
  await db('soft_bindings').where({ org_id: orgId }).whereIn('signed_file_id', signedFileIds).update({ discoverable });
}
