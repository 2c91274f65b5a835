/**
 * bench/softbinding: soft-binding lookups by Hamming distance (shared/softbinding/code-index.ts, multi-index hashing
 * over four 16-bit bands) over 1,000,000 stored 64-bit codes in Postgres, at T = 4, 8, 12, 16 and 20, against a
 * full scan with bit_count (the peer baseline) in the same run; then the same lookups on PGlite over 100,000 codes
 * (the `npm start` scale). Goal: lookup p99 <= 50 ms over 1M codes on this machine.
 *
 *   npx tsx bench/softbinding/lookup.ts [--n 1000000] [--queries 1000] [--t 4,8,12,16,20] [--pglite-n 100000] [--no-pglite]
 *
 * Needs Postgres at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, a superuser): it creates
 * a throwaway database, migrates it, and drops it at the end.
 *
 * Load (honest about what is skipped): one real organisation; the codes are random 64-bit values made in SQL
 * (INSERT ... SELECT generate_series), with value the matching ISCC string (computed in SQL, checked on a sample
 * against iscc-image.ts). Their signed_file_id is a random UUID with no signed file behind it: the load runs with
 * `SET LOCAL session_replication_role = replica`, which skips the foreign-key triggers (lookups never read
 * signed_files). The six secondary indexes are dropped before the load and recreated after it from their own
 * definitions (pg_indexes), as a bulk load would; then VACUUM ANALYZE, as autovacuum does for an insert-only table
 * (index-only scans need the visibility map). 1,000 anchors get planted neighbours at distances 1..20, spread over
 * the bands and at random bits, plus a second row with the same code.
 *
 * Queries: half at 0..3 bits from an anchor (the "same image, re-encoded" case), half random codes; each query code
 * is looked up at every T in turn (so bursts of load from other processes hit every T alike; the load average is
 * printed). Times are the client's (findNearCodes through knex, what the API would wait), one lookup at a time, warm
 * cache. Random 64-bit codes have about 53 neighbours within 16 bits and 2,000 within 20 among 1M codes by chance
 * (binomial tail), which the matches column shows; real image codes are less uniform.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { createKnex } from '../../shared/db/knex.js';
import { migrateLatest } from '../../shared/db/migrate.js';
import {
  bandMasks,
  bandRadii,
  bandsOf,
  codeDistance,
  findNearCodes,
  nearCodeCandidatesSql,
  probeCount,
  SOFT_BINDING_ALG,
} from '../../shared/softbinding/code-index.js';
import { int64ToImageCode } from '../../shared/softbinding/iscc-codec.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const GOAL_P99_MS = 50;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const N = Number(arg('n', '1000000'));
const QUERIES = Number(arg('queries', '1000'));
const TS = arg('t', '4,8,12,16,20').split(',').map(Number);
const PGLITE_N = Number(arg('pglite-n', '100000'));
const NO_PGLITE = process.argv.includes('--no-pglite');
const ANCHORS = 1000;

// --- codes ----------------------------------------------------------------------------------------------------------

function randomCode(): bigint {
  return randomBytes(8).readBigInt64BE();
}
function randomInt(n: number): number {
  return randomBytes(4).readUInt32BE() % n;
}
function flipRandom(code: bigint, d: number): bigint {
  const bits = new Set<number>();
  while (bits.size < d) bits.add(randomInt(64));
  let mask = 0n;
  for (const b of bits) mask |= 1n << BigInt(b);
  return BigInt.asIntN(64, code ^ mask);
}
/** d bits flipped, spread over the four bands as evenly as possible (the pigeonhole's worst case). */
function flipSpread(code: bigint, d: number): bigint {
  let mask = 0n;
  const first = randomInt(4);
  for (let band = 0; band < 4; band++) {
    const n = Math.floor(d / 4) + (((band - first + 4) % 4) < d % 4 ? 1 : 0);
    const bits = new Set<number>();
    while (bits.size < n) bits.add(randomInt(16));
    for (const b of bits) mask |= 1n << BigInt((3 - band) * 16 + b);
  }
  return BigInt.asIntN(64, code ^ mask);
}

/** The canonical ISCC Image-Code string of a bigint column `c`, in SQL: 'ISCC:EEA' + base32 of the 64-bit body. */
function isccValueSql(c: string): string {
  const ch = (expr: string) => `substr('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', (${expr})::integer + 1, 1)`;
  // Header 0x21 0x01 (CONTENT, IMAGE, v0, 64 bits): 15 bits in 'EEA', its last bit (1) leads the 4th character.
  const parts = [`'ISCC:EEA'`, ch(`16 + ((${c} >> 60) & 15)`)];
  for (let i = 0; i < 12; i++) parts.push(ch(`(${c} >> ${55 - 5 * i}) & 31`));
  return parts.join(' || ');
}

// --- load -----------------------------------------------------------------------------------------------------------

interface Loaded {
  anchors: bigint[];
  /** Planted codes per anchor (anchor itself included), for the recall check. */
  planted: Map<bigint, bigint[]>;
}

async function load(knex: Knex, n: number, anchorCount: number, log: (s: string) => void): Promise<Loaded> {
  const orgId = randomUUID();
  await knex('organisations').insert({ id: orgId, name: 'Soft binding bench' });

  const anchors: bigint[] = [];
  const planted = new Map<bigint, bigint[]>();
  const plantedCodes: bigint[] = [];
  for (let a = 0; a < anchorCount; a++) {
    const anchor = randomCode();
    const mine = [anchor, anchor];
    for (let d = 1; d <= 20; d++) mine.push(flipSpread(anchor, d), flipRandom(anchor, d));
    anchors.push(anchor);
    planted.set(anchor, mine);
    plantedCodes.push(...mine);
  }

  const secondary = (await knex.raw(
    `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'soft_bindings'
       AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'soft_bindings'::regclass)`,
  )) as { rows: Array<{ indexname: string; indexdef: string }> };

  const t0 = performance.now();
  await knex.transaction(async (trx) => {
    for (const ix of secondary.rows) await trx.raw(`DROP INDEX ${ix.indexname}`);
    // No signed_files rows behind these: skip the FK triggers for this transaction only (superuser).
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(
      `INSERT INTO soft_bindings (id, signed_file_id, org_id, alg, code, value)
       SELECT gen_random_uuid(), gen_random_uuid(), ?::uuid, ?, c, ${isccValueSql('c')}
       FROM (SELECT (floor(random() * 4294967296)::bigint << 32) | floor(random() * 4294967296)::bigint AS c
             FROM generate_series(1, ?::integer)) AS r`,
      [orgId, SOFT_BINDING_ALG, n],
    );
    await trx.raw(
      `INSERT INTO soft_bindings (id, signed_file_id, org_id, alg, code, value)
       SELECT gen_random_uuid(), gen_random_uuid(), ?::uuid, ?, c, ${isccValueSql('c')} FROM unnest(?::bigint[]) AS c`,
      [orgId, SOFT_BINDING_ALG, `{${plantedCodes.join(',')}}`],
    );
  });
  const tRows = performance.now();
  for (const ix of secondary.rows) await knex.raw(ix.indexdef);
  const tIndexes = performance.now();
  await knex.raw('VACUUM ANALYZE soft_bindings');
  const tDone = performance.now();
  log(
    `loaded ${(n + plantedCodes.length).toLocaleString('en-US')} rows (${n.toLocaleString('en-US')} random + ${plantedCodes.length.toLocaleString('en-US')} planted): ` +
      `rows ${s(tRows - t0)}, ${secondary.rows.length} indexes ${s(tIndexes - tRows)}, vacuum analyze ${s(tDone - tIndexes)}, total ${s(tDone - t0)}`,
  );

  // The values made in SQL are the ISCC strings iscc-image.ts makes.
  const sample = (await knex.raw('SELECT code::text AS code, value, b0, b1, b2, b3 FROM soft_bindings ORDER BY random() LIMIT 1000')) as {
    rows: Array<{ code: string; value: string; b0: number; b1: number; b2: number; b3: number }>;
  };
  for (const row of sample.rows) {
    const code = BigInt(row.code);
    if (row.value !== int64ToImageCode(code)) throw new Error(`value ${row.value} is not the ISCC string of ${code}`);
    if (bandsOf(code).join() !== [row.b0, row.b1, row.b2, row.b3].join()) throw new Error(`bands of ${code} differ`);
  }
  return { anchors, planted };
}
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// --- measuring ------------------------------------------------------------------------------------------------------

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const ms = (v: number) => v.toFixed(1).padStart(6);

function queryFor(i: number, loaded: Loaded): { q: bigint; anchor?: bigint } {
  // Even: 0..3 bits from an anchor; odd: a random code.
  if (i % 2 === 1) return { q: randomCode() };
  const anchor = loaded.anchors[randomInt(loaded.anchors.length)]!;
  return { q: flipRandom(anchor, randomInt(4)), anchor };
}

/** Index tuples a lookup examines (band values probed, all their rows), and the codes within T among them. */
async function candidateCount(knex: Knex, code: bigint, T: number): Promise<{ examined: number; withinT: number }> {
  const bands = bandsOf(code);
  let examined = 0;
  for (const [i, radius] of bandRadii(T).entries()) {
    if (radius < 0) continue;
    const r = (await knex.raw(
      `SELECT count(*)::integer AS n FROM soft_bindings WHERE discoverable AND b${i} = ANY(ARRAY(SELECT ?::integer # m FROM unnest(?::integer[]) AS m))`,
      [bands[i]!, `{${bandMasks(radius).join(',')}}`],
    )) as { rows: Array<{ n: number }> };
    examined += r.rows[0]!.n;
  }
  const c = nearCodeCandidatesSql(code, T);
  const w = (await knex.raw(`SELECT count(*)::integer AS n FROM (${c.sql}) AS c`, c.bindings)) as { rows: Array<{ n: number }> };
  return { examined, withinT: w.rows[0]!.n };
}

/** A process's time on a CPU and waiting for one (run queue), from /proc/<pid>/schedstat (nanoseconds). */
interface Sched {
  runNs: number;
  waitNs: number;
}
function schedstat(pid: number): () => Sched {
  return () => {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { runNs: run!, waitNs: wait! };
  };
}

interface Row {
  T: number;
  /** The Postgres backend's own CPU time per lookup, and its mean time waiting for a CPU. */
  cpu?: { p50: number; p99: number; waitMean: number };
  p50: number;
  p95: number;
  p99: number;
  max: number;
  probes: number;
  examined: number;
  matches: number;
}

/**
 * `queries` query codes, each looked up at every T (the order of T rotating), so that a burst of load from other
 * processes on this machine hits every T alike.
 */
async function measure(knex: Knex, loaded: Loaded, ts: number[], queries: number, countEvery: number, sched?: () => Sched): Promise<Row[]> {
  const times = new Map(ts.map((T) => [T, [] as number[]]));
  const cpu = new Map(ts.map((T) => [T, [] as number[]]));
  const wait = new Map(ts.map((T) => [T, [] as number[]]));
  const matches = new Map(ts.map((T) => [T, 0]));
  const examined = new Map(ts.map((T) => [T, [] as number[]]));
  for (let i = 0; i < queries; i++) {
    const { q, anchor } = queryFor(i, loaded);
    for (let j = 0; j < ts.length; j++) {
      const T = ts[(i + j) % ts.length]!;
      const s0 = sched?.();
      const t0 = performance.now();
      const found = await findNearCodes(knex, q, T, { discoverableOnly: true, limit: 1000 });
      times.get(T)!.push(performance.now() - t0);
      if (s0) {
        const s1 = sched!();
        cpu.get(T)!.push((s1.runNs - s0.runNs) / 1e6);
        wait.get(T)!.push((s1.waitNs - s0.waitNs) / 1e6);
      }
      matches.set(T, matches.get(T)! + found.length);
      if (anchor !== undefined) {
        // Recall check on the anchor's planted neighbours: every one within T of the query is found.
        const want = loaded.planted.get(anchor)!.filter((c) => codeDistance(c, q) <= T);
        const got = new Set(found.map((m) => m.code));
        const missed = want.filter((c) => !got.has(c));
        if (missed.length && found.length < 1000) throw new Error(`T=${T}: planted code ${missed[0]} (distance ${codeDistance(missed[0]!, q)}) not found`);
      }
      if (i % countEvery === 0) examined.get(T)!.push((await candidateCount(knex, q, T)).examined);
    }
  }
  return ts.map((T) => {
    const sorted = times.get(T)!.sort((a, b) => a - b);
    const ex = examined.get(T)!;
    const c = cpu.get(T)!.sort((a, b) => a - b);
    const w = wait.get(T)!;
    return {
      T,
      cpu: c.length ? { p50: pct(c, 50), p99: pct(c, 99), waitMean: w.reduce((a, b) => a + b, 0) / w.length } : undefined,
      p50: pct(sorted, 50),
      p95: pct(sorted, 95),
      p99: pct(sorted, 99),
      max: sorted[sorted.length - 1]!,
      probes: probeCount(T),
      examined: Math.round(ex.reduce((a, b) => a + b, 0) / ex.length),
      matches: matches.get(T)! / queries,
    };
  });
}

const loadAverage = () => `load average ${os.loadavg().map((v) => v.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores`;

function printRows(rows: Row[], goal: boolean, log: (s: string) => void): void {
  const withCpu = rows.some((r) => r.cpu);
  log(
    `   T   p50 ms  p95 ms  p99 ms  max ms${goal ? `  goal p99<=${GOAL_P99_MS}` : ''}` +
      (withCpu ? '  backend CPU p50/p99 ms  cpu-wait ms' : '') +
      '   probes  candidates  matches/query',
  );
  for (const r of rows) {
    log(
      `  ${String(r.T).padStart(2)}  ${ms(r.p50)}  ${ms(r.p95)}  ${ms(r.p99)}  ${ms(r.max)}` +
        (goal ? `  ${(r.p99 <= GOAL_P99_MS ? 'met' : 'NOT met').padStart(11)}` : '') +
        (r.cpu ? `  ${ms(r.cpu.p50)} / ${ms(r.cpu.p99)}        ${ms(r.cpu.waitMean)}` : '') +
        `  ${String(r.probes).padStart(7)}  ${r.examined.toLocaleString('en-US').padStart(10)}  ${r.matches.toFixed(1).padStart(13)}`,
    );
  }
}

/** The peer baseline: every discoverable row's distance computed (parallel sequential scan). */
async function bruteForce(knex: Knex, T: number, queries: number): Promise<{ p50: number; max: number; plan: string }> {
  const times: number[] = [];
  let plan = '';
  const sql =
    `SELECT s.signed_file_id, s.org_id, s.code::text AS code, s.value, bit_count((s.code # ?::bigint)::bit(64))::integer AS distance` +
    ` FROM soft_bindings s WHERE s.discoverable AND s.alg = ? AND bit_count((s.code # ?::bigint)::bit(64)) <= ?::integer` +
    ` ORDER BY distance, s.signed_file_id LIMIT 1000`;
  await knex.transaction(async (trx) => {
    for (let i = 0; i < queries; i++) {
      const q = randomCode().toString();
      const t0 = performance.now();
      await trx.raw(sql, [q, SOFT_BINDING_ALG, q, T]);
      times.push(performance.now() - t0);
    }
    const q = randomCode().toString();
    const e = (await trx.raw(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, [q, SOFT_BINDING_ALG, q, T])) as { rows: Array<{ 'QUERY PLAN': string }> };
    plan = e.rows.map((r) => r['QUERY PLAN']).filter((l) => /Seq Scan|Workers Launched|JIT:|Execution Time/.test(l)).map((l) => l.trim()).join('; ');
  });
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), max: times[times.length - 1]!, plan };
}

async function explain(knex: Knex, code: bigint, T: number, log: (s: string) => void): Promise<void> {
  const c = nearCodeCandidatesSql(code, T);
  const sql =
    `WITH candidates AS (${c.sql}) SELECT s.signed_file_id, bit_count((s.code # ?::bigint)::bit(64))::integer AS distance FROM soft_bindings s` +
    ` WHERE s.discoverable AND s.alg = ? AND s.code = ANY(ARRAY(SELECT code FROM candidates)) ORDER BY distance, s.signed_file_id LIMIT 1000`;
  const e = (await knex.raw(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, [...c.bindings, code.toString(), SOFT_BINDING_ALG])) as {
    rows: Array<{ 'QUERY PLAN': string }>;
  };
  log(`EXPLAIN ANALYZE, T=${T}, a query 2 bits from an anchor:`);
  for (const r of e.rows) {
    const line = r['QUERY PLAN'];
    if (/Index Only Scan|Index Scan|Rows Removed|Heap Fetches|HashAggregate|Append|Sort  |Limit|InitPlan|Planning Time|Execution Time|^\s*Buffers/.test(line) && !/Index Cond/.test(line)) {
      log(`  ${line.length > 150 ? `${line.slice(0, 150)}...` : line}`);
    }
  }
}

/** The plan's scans in one line: which index each reads, heap fetches, execution time. */
async function planSummary(knex: Knex, code: bigint, T: number): Promise<string> {
  const c = nearCodeCandidatesSql(code, T);
  const sql = `WITH candidates AS (${c.sql}) SELECT s.signed_file_id FROM soft_bindings s WHERE s.discoverable AND s.code = ANY(ARRAY(SELECT code FROM candidates))`;
  const e = (await knex.raw(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, c.bindings)) as { rows: Array<{ 'QUERY PLAN': string }> };
  const lines = e.rows.map((r) => r['QUERY PLAN']);
  const scans = lines.filter((l) => /Scan/.test(l)).map((l) => l.replace(/^[\s->]*/, '').replace(/ \(actual.*$/, '').replace(/ on soft_bindings.*$/, ''));
  const fetches = lines.filter((l) => /Heap Fetches/.test(l)).reduce((n, l) => n + Number(/(\d+)/.exec(l)![1]), 0);
  return `${scans.join(', ')}; heap fetches ${fetches}; ${lines.find((l) => /Execution Time/.test(l))!.trim()}`;
}

// --- runs -----------------------------------------------------------------------------------------------------------

async function postgres(log: (s: string) => void): Promise<void> {
  const name = `bench_softbinding_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const knex = createKnex({ databaseUrl: url.toString(), dataDir: '/nonexistent' });
  try {
    const version = ((await knex.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows[0]!.server_version;
    log(`Postgres ${version}, database ${name}`);
    await migrateLatest(knex);
    const loaded = await load(knex, N, ANCHORS, log);
    const sizes = (await knex.raw(
      `SELECT pg_size_pretty(pg_table_size('soft_bindings')) AS heap,
              pg_size_pretty(pg_relation_size('soft_bindings_b0')) AS band,
              pg_size_pretty(pg_indexes_size('soft_bindings')) AS indexes`,
    )) as { rows: Array<{ heap: string; band: string; indexes: string }> };
    log(`table ${sizes.rows[0]!.heap}, each band index ${sizes.rows[0]!.band}, all indexes ${sizes.rows[0]!.indexes}`);

    for (let i = 0; i < 200; i++) await findNearCodes(knex, queryFor(i, loaded).q, 16, { discoverableOnly: true }); // warm-up
    await explain(knex, flipRandom(loaded.anchors[0]!, 2), 16, log);
    await explain(knex, flipRandom(loaded.anchors[1]!, 2), 8, log);

    log(`\nfindNearCodes over ${(N + ANCHORS * 42).toLocaleString('en-US')} codes, ${QUERIES} lookups per T (half near planted codes, half random), limit 1000:`);
    log(`  before: ${loadAverage()}`);
    // One connection, so that its backend's CPU time (/proc/<pid>/schedstat) is the lookups'.
    const one = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 1, max: 1 } });
    const backendPid = async () => ((await one.raw('SELECT pg_backend_pid() AS pid')) as { rows: Array<{ pid: number }> }).rows[0]!.pid;
    let rows: Row[];
    try {
      const pid = await backendPid();
      rows = await measure(one, loaded, TS, QUERIES, 10, schedstat(pid));
      if ((await backendPid()) !== pid) throw new Error('the lookup connection changed: CPU times are not the lookups');
    } finally {
      await one.destroy();
    }
    printRows(rows, true, log);
    log(`  after: ${loadAverage()}`);
    log('  backend CPU: the Postgres backend\'s own time on a CPU per lookup; cpu-wait: its mean time ready but waiting for a CPU');
    log('  probes: band values looked up (index descents); candidates: index tuples examined, mean of every 10th query');

    const bfQueries = 20;
    log(`\npeer baseline, full scan with bit_count (${bfQueries} random queries each, limit 1000, default settings, 2 parallel workers):`);
    for (const T of [8, 16]) {
      const b = await bruteForce(knex, T, bfQueries);
      const mih = rows.find((r) => r.T === T);
      log(
        `  T=${String(T).padStart(2)}: p50 ${ms(b.p50)} ms, max ${ms(b.max)} ms` +
          (mih ? `  (index p50 ${mih.p50.toFixed(1)} ms: ${(b.p50 / mih.p50).toFixed(0)}x faster)` : '') +
          `\n    plan: ${b.plan}`,
      );
    }
  } finally {
    await knex.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.destroy();
  }
}

async function pglite(log: (s: string) => void): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-softbinding-pglite-'));
  const knex = createKnex({ databaseUrl: undefined, dataDir: dir });
  try {
    const version = ((await knex.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows[0]!.server_version;
    log(`\nPGlite (Postgres ${version}, WASM, single connection) in ${dir}: the npm start scale`);
    await migrateLatest(knex);
    const loaded = await load(knex, PGLITE_N, 100, log);
    for (let i = 0; i < 50; i++) await findNearCodes(knex, queryFor(i, loaded).q, 16, { discoverableOnly: true });
    log(`plan, T=16: ${await planSummary(knex, flipRandom(loaded.anchors[0]!, 2), 16)}`);
    const q = Math.min(QUERIES, 300);
    log(`findNearCodes over ${(PGLITE_N + 100 * 42).toLocaleString('en-US')} codes, ${q} lookups per T:`);
    const rows = await measure(knex, loaded, TS, q, 10);
    printRows(rows, false, log);
    log(`  ${loadAverage()}`);
    const b = await bruteForce(knex, 16, 10);
    log(`  full scan with bit_count, T=16: p50 ${ms(b.p50)} ms`);
  } finally {
    await knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const t0 = performance.now();
  await postgres(log);
  if (!NO_PGLITE) await pglite(log);
  log(`\ntotal ${s(performance.now() - t0)}`);
}

await main();
