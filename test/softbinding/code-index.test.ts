/**
 * The soft-binding code index (shared/softbinding/code-index.ts) on real Postgres and on PGlite: lookups by
 * Hamming distance against brute force over a few thousand random codes with neighbours planted at every distance
 * (spread over the bands so that each band sits at the edge of its search radius), discoverable-only lookups, the
 * organisation's own view, lookups by ISCC string, input validation, and the cascade from signed files.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../shared/db/knex.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import {
  bandMasks,
  bandRadii,
  bandsOf,
  codeDistance,
  findByValue,
  findNearCodes,
  findNearCodesInOrg,
  insertSoftBinding,
  MAX_DISTANCE,
  nearCodeCandidatesSql,
  probeCount,
  type SoftBindingMatch,
} from '../../shared/softbinding/code-index.js';
import { int64ToImageCode } from '../../shared/softbinding/iscc-codec.js';
import * as migration009 from '../../migrations/009_soft_bindings.js';
import { createTestDatabase } from '../support/database.js';

/** A small deterministic generator (xorshift64*), so a failure can be reproduced from the printed seed. */
function rng(seed: bigint) {
  let s = BigInt.asUintN(64, seed || 1n);
  const next64 = () => {
    s ^= s >> 12n;
    s = BigInt.asUintN(64, s ^ (s << 25n));
    s ^= s >> 27n;
    return BigInt.asUintN(64, s * 0x2545f4914f6cdd1dn);
  };
  return {
    code: () => BigInt.asIntN(64, next64()),
    int: (n: number) => Number(next64() % BigInt(n)),
  };
}
type Rng = ReturnType<typeof rng>;

/** `code` with exactly `d` bits flipped, spread over the four bands as evenly as possible starting at band `first`. */
function flipSpread(r: Rng, code: bigint, d: number, first: number): bigint {
  const perBand = [0, 0, 0, 0];
  for (let i = 0; i < d; i++) perBand[(first + i) % 4]!++;
  let mask = 0n;
  perBand.forEach((n, band) => {
    const chosen = new Set<number>();
    while (chosen.size < n) chosen.add(r.int(16));
    for (const bit of chosen) mask |= 1n << BigInt((3 - band) * 16 + bit);
  });
  return BigInt.asIntN(64, code ^ mask);
}

/** `code` with exactly `d` random bits flipped. */
function flipRandom(r: Rng, code: bigint, d: number): bigint {
  const chosen = new Set<number>();
  while (chosen.size < d) chosen.add(r.int(64));
  let mask = 0n;
  for (const bit of chosen) mask |= 1n << BigInt(bit);
  return BigInt.asIntN(64, code ^ mask);
}

interface Stored {
  signedFileId: string;
  orgId: string;
  code: bigint;
  value: string;
  discoverable: boolean;
}

async function seedOrg(knex: Knex): Promise<{ orgId: string; uploadId: string }> {
  const orgId = randomUUID();
  const uploadId = randomUUID();
  await knex('organisations').insert({ id: orgId, name: `Soft binding org ${orgId.slice(0, 8)}` });
  await knex('uploads').insert({ id: uploadId, org_id: orgId, filename: 'x.png', mime_type: 'image/png', size: 1, sha256: '0'.repeat(64), storage_key: 'x' });
  return { orgId, uploadId };
}

/** n signed files (each with its own sign job) of one organisation, in one statement. */
async function seedSignedFiles(knex: Knex, org: { orgId: string; uploadId: string }, n: number): Promise<string[]> {
  const result = await knex.raw(
    `WITH j AS (
       INSERT INTO sign_jobs (id, org_id, upload_id, manifest, status)
       SELECT gen_random_uuid(), ?::uuid, ?::uuid, '{}'::jsonb, 'signed' FROM generate_series(1, ?::integer)
       RETURNING id)
     INSERT INTO signed_files (id, org_id, job_id, filename, mime_type, size, sha256, storage_key, certificate_serial)
     SELECT gen_random_uuid(), ?::uuid, j.id, 'x.png', 'image/png', 1, repeat('0', 64), 'k/' || j.id, '01' FROM j
     RETURNING id`,
    [org.orgId, org.uploadId, n, org.orgId],
  );
  return (result as { rows: Array<{ id: string }> }).rows.map((row) => row.id);
}

function popcount32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const halves = new Map<bigint, [number, number]>();
function halvesOf(code: bigint): [number, number] {
  let h = halves.get(code);
  if (!h) {
    const u = BigInt.asUintN(64, code);
    h = [Number(u >> 32n), Number(u & 0xffffffffn)];
    halves.set(code, h);
  }
  return h;
}

/** The answer by checking every stored code (with a 32-bit popcount; codeDistance is checked against it once). */
function bruteForce(stored: Stored[], query: bigint, maxDistance: number, filter: (s: Stored) => boolean = (s) => s.discoverable): Map<string, number> {
  const out = new Map<string, number>();
  const [qh, ql] = halvesOf(query);
  for (const s of stored) {
    if (!filter(s)) continue;
    const [h, l] = halvesOf(s.code);
    const d = popcount32((h ^ qh) >>> 0) + popcount32((l ^ ql) >>> 0);
    if (d <= maxDistance) out.set(s.signedFileId, d);
  }
  return out;
}

function expectExact(found: SoftBindingMatch[], expected: Map<string, number>, byFile: Map<string, Stored>, label: string): void {
  const got = new Map(found.map((m) => [m.signedFileId, m.distance]));
  expect(got.size, `${label}: duplicate rows`).to.equal(found.length);
  const missing = [...expected.keys()].filter((k) => !got.has(k));
  const extra = [...got.keys()].filter((k) => !expected.has(k));
  expect(missing, `${label}: missed`).to.deep.equal([]);
  expect(extra, `${label}: beyond the distance or hidden`).to.deep.equal([]);
  for (let i = 0; i < found.length; i++) {
    const m = found[i]!;
    expect(m.distance, `${label}: distance`).to.equal(expected.get(m.signedFileId));
    const s = byFile.get(m.signedFileId)!;
    expect(m.code, `${label}: code`).to.equal(s.code);
    expect(m.value).to.equal(s.value);
    expect(m.orgId).to.equal(s.orgId);
    if (i > 0) expect(m.distance, `${label}: order`).to.be.at.least(found[i - 1]!.distance);
  }
}

interface Fixture {
  knex: Knex;
  stored: Stored[];
  byFile: Map<string, Stored>;
  anchors: bigint[];
  orgs: Array<{ orgId: string; uploadId: string }>;
  r: Rng;
}

/**
 * `randomCount` random codes, plus for each of `anchorCount` anchors: copies at every distance 0..MAX_DISTANCE+2
 * (spread over the bands, rotating which band gets the extra bits) and at random positions, a second row with the
 * anchor's exact code, and a hidden (non-discoverable) row at distance 0 and 1. Two organisations.
 */
async function buildFixture(knex: Knex, randomCount: number, anchorCount: number, seed: bigint): Promise<Fixture> {
  const r = rng(seed);
  const orgs = [await seedOrg(knex), await seedOrg(knex)];
  const codes: Array<{ code: bigint; discoverable: boolean; org: number }> = [];
  for (let i = 0; i < randomCount; i++) codes.push({ code: r.code(), discoverable: i % 10 !== 0, org: i % 2 });
  const anchors: bigint[] = [];
  for (let a = 0; a < anchorCount; a++) {
    const anchor = r.code();
    anchors.push(anchor);
    codes.push({ code: anchor, discoverable: true, org: 0 }, { code: anchor, discoverable: true, org: 1 });
    for (let d = 1; d <= MAX_DISTANCE + 2; d++) {
      codes.push({ code: flipSpread(r, anchor, d, (a + d) % 4), discoverable: true, org: d % 2 });
      codes.push({ code: flipRandom(r, anchor, d), discoverable: true, org: (d + 1) % 2 });
    }
    codes.push({ code: anchor, discoverable: false, org: 0 }, { code: flipRandom(r, anchor, 1), discoverable: false, org: 1 });
  }
  const files = [
    await seedSignedFiles(knex, orgs[0]!, codes.filter((c) => c.org === 0).length),
    await seedSignedFiles(knex, orgs[1]!, codes.filter((c) => c.org === 1).length),
  ];
  const stored: Stored[] = [];
  await knex.transaction(async (trx) => {
    for (const c of codes) {
      const org = orgs[c.org]!;
      const s: Stored = { signedFileId: files[c.org]!.pop()!, orgId: org.orgId, code: c.code, value: int64ToImageCode(c.code), discoverable: c.discoverable };
      await insertSoftBinding(trx, { signedFileId: s.signedFileId, orgId: s.orgId, code: s.code, value: s.value, discoverable: s.discoverable });
      stored.push(s);
    }
  });
  await knex.raw('ANALYZE soft_bindings');
  return { knex, stored, byFile: new Map(stored.map((s) => [s.signedFileId, s])), anchors, orgs, r };
}

/** The lookups every database must answer exactly like brute force. */
function exactnessTests(get: () => Fixture, distances: number[], randomQueries: number) {
  it('finds every discoverable code within the distance and none beyond, nearest first', async () => {
    const f = get();
    const queries: Array<{ q: bigint; label: string }> = [];
    f.anchors.forEach((a, i) => {
      queries.push({ q: a, label: `anchor ${i}` });
      queries.push({ q: flipSpread(f.r, a, 2 + (i % 5), i % 4), label: `near anchor ${i}` });
    });
    for (let i = 0; i < randomQueries; i++) queries.push({ q: f.r.code(), label: `random ${i}` });
    let compared = 0;
    let nonEmpty = 0;
    for (const T of distances) {
      for (const { q, label } of queries) {
        const expected = bruteForce(f.stored, q, T);
        const found = await findNearCodes(f.knex, q, T, { discoverableOnly: true, limit: 1000 });
        expectExact(found, expected, f.byFile, `T=${T} ${label} q=${q}`);
        compared += expected.size;
        if (expected.size) nonEmpty++;
      }
    }
    // The planted neighbours make most lookups non-trivial: every anchor query has matches at every T.
    expect(nonEmpty).to.be.at.least(distances.length * f.anchors.length);
    expect(compared).to.be.greaterThan(distances.length * f.anchors.length * 3);
  });

  it('never returns a non-discoverable row, even at distance 0', async () => {
    const f = get();
    const hidden = f.stored.filter((s) => !s.discoverable);
    expect(hidden.length).to.be.greaterThan(10);
    for (const s of hidden.slice(0, 60)) {
      const found = await findNearCodes(f.knex, s.code, 4, { discoverableOnly: true, limit: 1000 });
      expect(found.map((m) => m.signedFileId)).to.not.include(s.signedFileId);
      for (const m of found) expect(f.byFile.get(m.signedFileId)!.discoverable).to.equal(true);
      const byValue = await findByValue(f.knex, s.value);
      expect(byValue.map((m) => m.signedFileId)).to.not.include(s.signedFileId);
    }
  });

  it('limit keeps the nearest', async () => {
    const f = get();
    const q = f.anchors[0]!;
    const all = await findNearCodes(f.knex, q, 20, { discoverableOnly: true, limit: 1000 });
    expect(all.length).to.be.greaterThan(10);
    const few = await findNearCodes(f.knex, q, 20, { discoverableOnly: true, limit: 5 });
    expect(few).to.have.length(5);
    expect(few.map((m) => m.distance)).to.deep.equal(all.slice(0, 5).map((m) => m.distance));
    expect(few.every((m) => m.distance <= all[5]!.distance)).to.equal(true);
  });

  it('the organisation view: own rows only, hidden ones on request', async () => {
    const f = get();
    const [org0, org1] = f.orgs.map((o) => o.orgId) as [string, string];
    for (const [i, q] of f.anchors.slice(0, 5).entries()) {
      for (const T of [0, 1, 6, 13]) {
        for (const orgId of [org0, org1]) {
          const own = await findNearCodesInOrg(f.knex, orgId, q, T, { limit: 1000 });
          expectExact(own, bruteForce(f.stored, q, T, (s) => s.discoverable && s.orgId === orgId), f.byFile, `org T=${T} anchor ${i}`);
          const withHidden = await findNearCodesInOrg(f.knex, orgId, q, T, { limit: 1000, includeNonDiscoverable: true });
          expectExact(withHidden, bruteForce(f.stored, q, T, (s) => s.orgId === orgId), f.byFile, `org+hidden T=${T} anchor ${i}`);
        }
      }
    }
  });

  it('finds by ISCC string (canonicalised), discoverable rows only', async () => {
    const f = get();
    const a = f.anchors[1]!;
    const value = int64ToImageCode(a);
    const expected = f.stored.filter((s) => s.code === a && s.discoverable).map((s) => s.signedFileId).sort();
    expect(expected).to.have.length(2);
    for (const v of [value, value.toLowerCase(), value.slice('ISCC:'.length)]) {
      const found = await findByValue(f.knex, v);
      expect(found.map((m) => m.signedFileId).sort()).to.deep.equal(expected);
      expect(found.every((m) => m.distance === 0 && m.code === a && m.value === value)).to.equal(true);
    }
    expect(await findByValue(f.knex, int64ToImageCode(a ^ 1n << 40n))).to.satisfy((rows: SoftBindingMatch[]) => rows.every((m) => m.code !== a));
  });
}

function validationTests(get: () => Knex) {
  it('rejects bad input', async () => {
    const knex = get();
    const q = 12345n;
    for (const T of [-1, 21, 1.5, Number.NaN, Infinity]) {
      await expectReject(findNearCodes(knex, q, T, { discoverableOnly: true }), RangeError);
    }
    await expectReject(findNearCodes(knex, q, 4, { discoverableOnly: false as unknown as true }), TypeError);
    await expectReject(findNearCodes(knex, q, 4, {} as { discoverableOnly: true }), TypeError);
    await expectReject(findNearCodes(knex, q, 4, { discoverableOnly: true, limit: 0 }), RangeError);
    await expectReject(findNearCodes(knex, q, 4, { discoverableOnly: true, limit: 1001 }), RangeError);
    await expectReject(findNearCodes(knex, 1n << 64n, 4, { discoverableOnly: true }), RangeError);
    await expectReject(findNearCodes(knex, 5 as unknown as bigint, 4, { discoverableOnly: true }), TypeError);
    await expectReject(findNearCodesInOrg(knex, 'not-a-uuid', q, 4), TypeError);
    await expectReject(findByValue(knex, 'ISCC:KACYPXW445FTYNJ3'), RangeError); // a Meta-Code, not an Image-Code
    await expectReject(findByValue(knex, 'hello'), RangeError);
    const base = { signedFileId: randomUUID(), orgId: randomUUID(), code: q, value: int64ToImageCode(q) };
    await expectReject(insertSoftBinding(knex, { ...base, value: int64ToImageCode(q + 1n) }), RangeError);
    await expectReject(insertSoftBinding(knex, { ...base, value: base.value.toLowerCase() }), RangeError);
    await expectReject(insertSoftBinding(knex, { ...base, alg: 'io.other' as 'io.iscc.v0' }), RangeError);
    await expectReject(insertSoftBinding(knex, { ...base, signedFileId: 'x' }), TypeError);
  });
}

async function expectReject(p: Promise<unknown>, type: new (...args: never[]) => Error): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return;
  }
  expect.fail(`expected a ${type.name}`);
}

describe('soft bindings: code index (helpers)', () => {
  it('bands: most significant first, signed and unsigned forms alike', () => {
    expect(bandsOf(0x0123456789abcdefn)).to.deep.equal([0x0123, 0x4567, 0x89ab, 0xcdef]);
    expect(bandsOf(-1n)).to.deep.equal([0xffff, 0xffff, 0xffff, 0xffff]);
    expect(bandsOf(0xfedcba9876543210n)).to.deep.equal(bandsOf(BigInt.asIntN(64, 0xfedcba9876543210n)));
    expect(() => bandsOf(1n << 64n)).to.throw(RangeError);
  });

  it('codeDistance agrees with a 32-bit popcount', () => {
    const r = rng(7n);
    for (let i = 0; i < 2000; i++) {
      const a = r.code();
      const b = i % 3 ? r.code() : flipRandom(r, a, i % 21);
      const [ah, al] = halvesOf(a);
      const [bh, bl] = halvesOf(b);
      expect(codeDistance(a, b)).to.equal(popcount32((ah ^ bh) >>> 0) + popcount32((al ^ bl) >>> 0));
    }
    expect(codeDistance(0n, -1n)).to.equal(64);
    expect(codeDistance(0xffffffffffffffffn, -1n)).to.equal(0);
  });

  it('band radii: the pigeonhole bound is exactly T+1 band bits', () => {
    for (let T = 0; T <= MAX_DISTANCE; T++) {
      const radii = bandRadii(T);
      // Any code pair the search misses has band distances >= radius + 1 everywhere, so distance >= sum(r+1) = T+1.
      expect(radii.reduce((n, r) => n + r + 1, 0), `T=${T}`).to.equal(T + 1);
    }
    expect(bandRadii(16)).to.deep.equal([4, 3, 3, 3]);
    expect(bandRadii(2)).to.deep.equal([0, 0, 0, -1]);
    expect([0, 1, 2, 3, 4, 5].map((r) => bandMasks(r).length)).to.deep.equal([1, 17, 137, 697, 2517, 6885]);
    expect(probeCount(16)).to.equal(2517 + 3 * 697);
  });
});

describe('soft bindings: code index on Postgres', function () {
  this.timeout(120_000);
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let fixture: Fixture;
  const seed = BigInt(`0x${randomBytes(8).toString('hex')}`);

  before(async () => {
    db = await createTestDatabase();
    fixture = await buildFixture(db.knex, 3000, 24, seed);
  });
  after(async () => {
    await db?.drop();
  });

  it(`(seed ${seed})`, () => undefined);
  exactnessTests(() => fixture, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 20], 30);
  validationTests(() => db.knex);

  it('stores bands Postgres generates as bandsOf computes them', async () => {
    const rows = (await db.knex.raw('SELECT code::text AS code, b0, b1, b2, b3 FROM soft_bindings LIMIT 500')) as { rows: Array<Record<string, string | number>> };
    expect(rows.rows).to.have.length(500);
    for (const row of rows.rows) expect([row.b0, row.b1, row.b2, row.b3]).to.deep.equal(bandsOf(BigInt(row.code!)));
  });

  it('one code per signed file and alg', async () => {
    const s = fixture.stored[0]!;
    let failed: unknown;
    try {
      await insertSoftBinding(db.knex, { signedFileId: s.signedFileId, orgId: s.orgId, code: s.code, value: s.value });
    } catch (err) {
      failed = err;
    }
    expect((failed as { code?: string })?.code).to.equal('23505');
  });

  it('reads candidates from the band indexes only (index-only scans), then the rows by code', async () => {
    const q = fixture.anchors[2]!;
    await db.knex.raw('VACUUM ANALYZE soft_bindings');
    const candidates = nearCodeCandidatesSql(q, 16);
    const plan = (await db.knex.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${candidates.sql}`, candidates.bindings)) as { rows: Array<{ 'QUERY PLAN': unknown }> };
    const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
    for (const band of ['b0', 'b1', 'b2', 'b3']) expect(text).to.include(`"Index Name":"soft_bindings_${band}"`);
    expect(text).to.include('"Node Type":"Index Only Scan"');
    expect(text).to.not.include('"Node Type":"Seq Scan"');
  });

  it('deleting a signed file deletes its soft binding', async () => {
    const s = fixture.stored.find((x) => x.discoverable && fixture.anchors.includes(x.code))!;
    const before = await findNearCodes(db.knex, s.code, 0, { discoverableOnly: true });
    expect(before.map((m) => m.signedFileId)).to.include(s.signedFileId);
    await db.knex('signed_files').where({ id: s.signedFileId }).delete();
    expect(await db.knex('soft_bindings').where({ signed_file_id: s.signedFileId }).first()).to.equal(undefined);
    const after = await findNearCodes(db.knex, s.code, 0, { discoverableOnly: true });
    expect(after.map((m) => m.signedFileId)).to.not.include(s.signedFileId);
    expect(after).to.have.length(before.length - 1);
    // ...and deleting an organisation deletes its organisation's rows.
    await db.knex('organisations').where({ id: fixture.orgs[1]!.orgId }).delete();
    expect(Number((await db.knex('soft_bindings').where({ org_id: fixture.orgs[1]!.orgId }).count({ n: '*' }))[0]!.n)).to.equal(0);
  });

  it('migration 009 goes down and up again', async () => {
    await migration009.down(db.knex);
    expect(await db.knex.schema.hasTable('soft_bindings')).to.equal(false);
    await migration009.up(db.knex);
    const options = (await db.knex.raw(`SELECT reloptions FROM pg_class WHERE relname = 'soft_bindings'`)) as { rows: Array<{ reloptions: string[] }> };
    expect(options.rows[0]!.reloptions).to.include('autovacuum_vacuum_insert_scale_factor=0.01');
    const s = fixture.stored.find((x) => x.discoverable && x.orgId === fixture.orgs[0]!.orgId)!;
    await insertSoftBinding(db.knex, { signedFileId: s.signedFileId, orgId: s.orgId, code: s.code, value: s.value });
    expect((await findNearCodes(db.knex, s.code, 0, { discoverableOnly: true })).map((m) => m.signedFileId)).to.deep.equal([s.signedFileId]);
  });
});

describe('soft bindings: code index on PGlite', function () {
  this.timeout(300_000);
  let knex: Knex;
  let dir: string;
  let fixture: Fixture;
  const seed = BigInt(`0x${randomBytes(8).toString('hex')}`);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'softbinding-pglite-'));
    knex = createKnex({ databaseUrl: undefined, dataDir: dir });
    await migrateLatest(knex);
    fixture = await buildFixture(knex, 1000, 8, seed);
  });
  after(async () => {
    await knex?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`(seed ${seed})`, () => undefined);
  exactnessTests(() => fixture, [0, 1, 3, 4, 7, 8, 12, 16, 20], 10);
  validationTests(() => knex);

  it('deleting a signed file deletes its soft binding', async () => {
    const s = fixture.stored.find((x) => x.discoverable)!;
    await knex('signed_files').where({ id: s.signedFileId }).delete();
    expect(await knex('soft_bindings').where({ signed_file_id: s.signedFileId }).first()).to.equal(undefined);
    expect((await findNearCodes(knex, s.code, 0, { discoverableOnly: true })).map((m) => m.signedFileId)).to.not.include(s.signedFileId);
  });
});
