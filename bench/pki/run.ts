/**
 * PKI at scale (one leaf certificate per organisation): leaf.crl with 10,000 and 100,000 revoked entries, and
 * the OCSP responder over 10,000 distinct certificates against one hot certificate, on Postgres, in one run.
 *
 *   npx tsx bench/pki/run.ts [--crl 10000,100000] [--crl-rounds 3] [--ocsp-certs 10000] [--n 50000] [--c 16] [--rounds 5] [--timeout 1200]
 *
 * Needs Postgres (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; a throwaway database is
 * created and dropped) and `openssl`. Everything runs on loopback; temp dirs, the database, the server and the
 * load process are removed/stopped at the end, on error, on Ctrl-C and at the time limit (--timeout, seconds,
 * default 1200); should the process be killed outright, bench/pki/janitor.ts (started detached) drops the
 * database and removes the temp dir once it is gone.
 *
 * Set-up: migrations, a real root + sub-CA (+ service leaf and TSA) through initPki with a LocalKeyVault in a
 * temp dir; then under the sub-CA:
 *   - `--ocsp-certs` real leaf certificates (issueLeafCertificate, each signed by the sub-CA's vault key: one
 *     per organisation, CN "Bench Org <n>"), unrevoked, multi-row inserts;
 *   - revoked rows for the CRL, bulk-inserted (batches of 1000) up to each `--crl` size. Signing 100,000
 *     certificates through the vault would take minutes, and the CRL only needs serial, revocation time and
 *     reason: each row's DER is a real leaf certificate's with the row's own random serial written over the
 *     serial field (so it parses, its serial and fingerprint are unique; its signature is not valid, and no
 *     code path on the way serves or verifies it). Times are spread over the last year; reasons are mixed,
 *     a fifth `unspecified` (no reasonCode extension).
 *
 * 1. CRL: publishCrl(deps, 'leaf.crl') — what the scheduler (refreshPublications) and a revocation call —
 *    reads the revoked rows from Postgres, builds, signs (vault signatures counted: must be exactly one), stores
 *    the row and writes <DATA_DIR>/crl/leaf.crl. `--crl-rounds` publications per size (the first in a process
 *    is colder; the median is shown, all rounds listed, the goal checked on the slowest). Each CRL is checked
 *    with `openssl crl -inform DER -CAfile sub-ca.pem -noout -verify` and its entries counted in
 *    `openssl crl -text`.
 * 2. OCSP: the responder wired as ocsp/role.ts wires it (loadOcspIssuers, databaseStatusLookup, the shared
 *    databaseResponseStore, createOcspServer), on 127.0.0.1. A pre-signing pass asks once for each of the
 *    10,000 certificates (each a cache fill: shared-store read, status lookup, vault signature, store write);
 *    its time is reported. Then the measured rounds, alternating: "distinct" (each request a different serial,
 *    cycling over the 10,000) and "hot" (every request the same certificate), each `--n` POSTs over `--c`
 *    keep-alive connections from the same load process (bench/pki/ocsp-load.ts, checks every answer). Vault
 *    signatures during the measured rounds are counted twice (responder stats() and a counting vault) and
 *    must be 0. Server CPU per request is the bench process's CPU (user + system), where the responder runs; its
 *    hot / distinct ratio does not depend on other load on the machine, which req/s does (the load average is
 *    printed).
 */
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { pino } from 'pino';
import type { Server } from 'node:http';
import { databaseStatusLookup, loadOcspIssuers } from '../../ocsp/database-issuers.js';
import { listenServer } from '../../ocsp/http-server.js';
import { OcspResponder } from '../../ocsp/responder.js';
import { databaseResponseStore } from '../../ocsp/response-store.js';
import { createOcspServer } from '../../ocsp/server.js';
import { loadConfig } from '../../shared/config.js';
import { openDatabase } from '../../shared/db/index.js';
import { initPki } from '../../shared/pki/init.js';
import { issueLeafCertificate } from '../../shared/pki/certificate-templates.js';
import { publishCrl } from '../../shared/pki/crl-publisher.js';
import type { CrlReason } from '../../shared/domain/crl-reasons.js';
import { TAG, readChildren, readSingle } from '../../shared/pki/der.js';
import { certIdFor, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { derToPem } from '../../shared/pki/pem.js';
import { publicationDir } from '../../shared/pki/publication-files.js';
import { randomSerial, serialHexToIntegerBytes } from '../../shared/pki/serial.js';
import { LocalKeyVault } from '../../shared/vault/local.js';
import type { KeyVault, VaultKey } from '../../shared/vault/types.js';
import type { LoadJob, LoadResult } from './ocsp-load.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CRL_GOAL_S: Record<number, number> = { 10_000: 2, 100_000: 10 };
const RATIO_GOAL = 0.8;
const DAY_MS = 86_400_000;
const BATCH = 1000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
  return v;
}

function listArg(name: string, fallback: number[]): number[] {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = (process.argv[i + 1] ?? '').split(',').map(Number);
  if (v.length === 0 || v.some((x) => !Number.isInteger(x) || x <= 0)) throw new Error(`--${name} must be a list of positive integers`);
  return v.sort((a, b) => a - b);
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? 1 : 0, out: `${stdout}\n${stderr}` });
    });
  });
}

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const int = (n: number) => n.toLocaleString('en-US');

/** A vault whose keys count their signatures (the bench's own check next to the responder's stats()). */
function countingVault(inner: KeyVault): KeyVault & { signatures: number } {
  const wrapped = new Map<VaultKey, VaultKey>();
  const vault = {
    kind: `counting-${inner.kind}`,
    signatures: 0,
    wrap(key: VaultKey): VaultKey {
      let w = wrapped.get(key);
      if (!w) {
        w = {
          name: key.name,
          publicKeySpki: key.publicKeySpki,
          signEs384: (data) => {
            vault.signatures++;
            return key.signEs384(data);
          },
        };
        wrapped.set(key, w);
      }
      return w;
    },
    ensureKey: async (name: string) => vault.wrap(await inner.ensureKey(name)),
    getKey: async (name: string) => vault.wrap(await inner.getKey(name)),
  };
  return vault;
}

// --------------------------------------------------------------------------------------------------------
// Cleanup: idempotent, bounded, run on success, error, signals and the time limit.

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await Promise.race([step(), sleep(10_000)]);
      } catch (err) {
        console.error(`cleanup step failed: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

// --------------------------------------------------------------------------------------------------------
// Load process

function startLoadProcess(): { run(job: LoadJob, limitMs?: number): Promise<LoadResult>; stop(): Promise<void> } {
  const file = path.join(HERE, 'ocsp-load.ts');
  // fork keeps tsx's loader (process.execArgv) for the .ts file.
  const child: ChildProcess = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    run(job, limitMs = 300_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`load process did not finish within ${limitMs / 1000} s`)), limitMs);
        child.once('message', (result) => {
          clearTimeout(timer);
          resolve(result as LoadResult);
        });
        child.send(job);
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(3000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

// --------------------------------------------------------------------------------------------------------

interface CertRow {
  id: string;
  serial: string;
  role: 'leaf';
  issuer_id: string;
  key_name: string;
  subject: string;
  issuer: string;
  not_before: Date;
  not_after: Date;
  der: Buffer;
  fingerprint_sha256: string;
  revoked_at?: Date;
  revocation_reason?: CrlReason;
}

const REASONS: CrlReason[] = ['unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation'];

async function insertRows(knex: Knex, rows: CertRow[]): Promise<void> {
  await knex.transaction(async (trx) => {
    for (let i = 0; i < rows.length; i += BATCH) await trx('certificates').insert(rows.slice(i, i + BATCH));
  });
}

async function main(): Promise<void> {
  const crlSizes = listArg('crl', [10_000, 100_000]);
  const crlRounds = arg('crl-rounds', 3);
  const ocspCerts = arg('ocsp-certs', 10_000);
  const n = arg('n', 50_000);
  const c = arg('c', 16);
  const rounds = arg('rounds', 5);
  const timeLimitS = arg('timeout', 1200);
  const limit = setTimeout(() => {
    console.error(`time limit of ${timeLimitS} s reached: cleaning up`);
    void cleanup().finally(() => process.exit(1));
  }, timeLimitS * 1000);
  limit.unref();
  cleanups.push(() => clearTimeout(limit));

  // --- throwaway database, temp data dir, local vault ---
  const dbName = `bench_pki_${randomBytes(5).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pki-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  // Drops the database and removes the dir once this process is gone, however it ends (see janitor.ts).
  spawn(process.execPath, [...process.execArgv, path.join(HERE, 'janitor.ts'), String(process.pid), ADMIN_URL, dbName, dataDir], {
    detached: true,
    stdio: 'ignore',
  }).unref();
  const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  cleanups.push(() => admin.destroy());
  await admin.raw(`CREATE DATABASE ${dbName}`);
  cleanups.push(async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  });
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    DATA_DIR: dataDir,
    JWT_SECRET: `bench-${randomBytes(24).toString('hex')}`,
    OCSP_URL: 'http://ocsp.bench.test',
    CRL_URL: 'http://crl.bench.test',
    PKI_ORGANISATION: 'Bench PKI',
    LOG_LEVEL: 'warn',
  });
  const knex = await openDatabase(config); // runs the migrations (shared/db/migrate.ts)
  cleanups.push(() => knex.destroy());
  const migrations = ((await knex('knex_migrations').orderBy('id').select('name')) as { name: string }[]).map((m) => m.name);
  const vault = countingVault(new LocalKeyVault(dataDir));
  const deps = { knex, vault, config };
  const logger = pino({ level: 'warn' });

  const setupStart = performance.now();
  const chain = await initPki(deps);
  const subCa = chain.subCa;
  const subCaKey = await vault.getKey(subCa.key_name);
  const subCaDer = new Uint8Array(subCa.der);
  writeFileSync(path.join(dataDir, 'sub-ca.pem'), derToPem(subCaDer));
  const [pgVersion] = ((await knex.raw('SHOW server_version')) as { rows: { server_version: string }[] }).rows;
  console.log(`node ${process.version}, Postgres ${pgVersion?.server_version}, ${availableParallelism()} cores; migrations: ${migrations.join(', ')}`);

  // --- the organisations' leaf certificates (real, vault-signed) for OCSP ---
  const now = new Date();
  const notBefore = new Date(now.getTime() - 5 * 60_000);
  const notAfter = new Date(now.getTime() + 365 * DAY_MS);
  const orgKey = chain.leaf; // SPKI reused: key generation is not what is measured, and OCSP never looks at it
  const orgSpki = (await vault.getKey(orgKey.key_name)).publicKeySpki;
  const issueStart = performance.now();
  const signedBefore = vault.signatures;
  const leaves: CertRow[] = [];
  for (let i = 0; i < ocspCerts; i++) {
    // The local vault signs synchronously: without a turn of the event loop now and then, Ctrl-C would wait.
    if (i % 8 === 0) await yieldToEventLoop();
    const issued = await issueLeafCertificate({
      subject: { commonName: `Bench Org ${i + 1} C2PA Signing`, organization: `Bench Org ${i + 1}` },
      subjectPublicKeySpki: orgSpki,
      issuer: { certificateDer: subCaDer, key: subCaKey },
      crlUrl: config.crlUrl,
      ocspUrl: config.ocspUrl,
      notBefore,
      notAfter,
    });
    const f = issued.facts;
    leaves.push({
      id: randomUUID(),
      serial: f.serialHex,
      role: 'leaf',
      issuer_id: subCa.id,
      key_name: `bench-org-${i + 1}`,
      subject: f.subject,
      issuer: f.issuer,
      not_before: f.notBefore,
      not_after: f.notAfter,
      der: Buffer.from(issued.der),
      fingerprint_sha256: f.fingerprintSha256,
    });
  }
  const issueMs = performance.now() - issueStart;
  await insertRows(knex, leaves);
  console.log(
    `set-up: root + sub-CA by initPki; ${int(ocspCerts)} leaf certificates issued in ${seconds(issueMs)} ` +
      `(${vault.signatures - signedBefore} vault signatures, ${((issueMs * 1000) / ocspCerts).toFixed(0)} us each) and inserted`,
  );

  // --- revoked rows for the CRL: a real leaf's DER with each row's serial written over the serial field ---
  const template = Buffer.from(leaves[0]!.der);
  const tbs = readChildren(template, readSingle(template, TAG.SEQUENCE))[0]!;
  const serialTlv = readChildren(template, tbs)[1]!;
  if (serialTlv.tag !== TAG.INTEGER || serialTlv.end - serialTlv.contentStart !== 16) throw new Error('unexpected template serial');
  let revokedRows = 0;
  const revokeUpTo = async (count: number) => {
    const start = performance.now();
    const rows: CertRow[] = [];
    const yearAgo = Math.floor(now.getTime() / 1000) - 365 * 86_400;
    for (let i = revokedRows; i < count; i++) {
      const serial = randomSerial();
      const der = Buffer.from(template);
      der.set(serial.bytes, serialTlv.contentStart);
      rows.push({
        id: randomUUID(),
        serial: serial.hex,
        role: 'leaf',
        issuer_id: subCa.id,
        key_name: `bench-revoked-${i + 1}`,
        subject: `CN=Bench Revoked Org ${i + 1} C2PA Signing, O=Bench Revoked Org ${i + 1}`,
        issuer: subCa.subject,
        not_before: notBefore,
        not_after: notAfter,
        der,
        fingerprint_sha256: createHash('sha256').update(der).digest('hex'),
        revoked_at: new Date((yearAgo + Math.floor(Math.random() * 365 * 86_400)) * 1000),
        revocation_reason: REASONS[i % REASONS.length]!,
      });
    }
    await insertRows(knex, rows);
    await knex.raw('ANALYZE certificates'); // as autovacuum would after a bulk change
    revokedRows = count;
    return performance.now() - start;
  };

  // --- 1. CRLs through the publishing code path ---
  const crlFile = path.join(publicationDir(dataDir), 'leaf.crl');
  const crlResults: string[] = [];
  for (const size of crlSizes) {
    const fillMs = await revokeUpTo(size);
    console.log(`\nleaf.crl with ${int(size)} revoked certificates (rows bulk-inserted in ${seconds(fillMs)})`);
    const times: number[] = [];
    for (let r = 0; r < crlRounds; r++) {
      const sigBefore = vault.signatures;
      const t0 = performance.now();
      const outcome = await publishCrl(deps, 'leaf.crl', { when: 'always' });
      const ms = performance.now() - t0;
      const signatures = vault.signatures - sigBefore;
      const der = readFileSync(crlFile);
      const verified = await run('openssl', ['crl', '-inform', 'DER', '-in', crlFile, '-CAfile', 'sub-ca.pem', '-noout', '-verify'], dataDir);
      const text = await run('openssl', ['crl', '-inform', 'DER', '-in', crlFile, '-noout', '-text'], dataDir);
      const entries = (text.out.match(/Serial Number:/g) ?? []).length;
      const ok = outcome.action === 'published' && signatures === 1 && verified.code === 0 && /verify OK/.test(verified.out) && entries === size;
      times.push(ms);
      console.log(
        `  round ${r + 1}: ${seconds(ms)}  CRL #${outcome.crlNumber}, ${int(der.length)} bytes, ${int(entries)} entries (openssl -text), ` +
          `${signatures} vault signature(s), openssl -verify: ${/verify OK/.test(verified.out) ? 'verify OK' : verified.out.trim()}${ok ? '' : '   <-- CHECK FAILED'}`,
      );
      if (!ok) throw new Error(`CRL check failed (action ${outcome.action}, ${signatures} signatures, ${entries} entries, openssl: ${verified.out.trim()})`);
    }
    const goal = CRL_GOAL_S[size];
    const worst = Math.max(...times);
    const verdict = goal === undefined ? '' : `   goal: under ${goal} s (slowest round ${seconds(worst)}: ${worst < goal * 1000 ? 'met' : 'MISSED'})`;
    const line = `leaf.crl, ${int(size).padStart(7)} entries: median ${seconds(median(times))}, ${int(readFileSync(crlFile).length)} bytes, 1 vault signature${verdict}`;
    console.log(`  ${line}`);
    crlResults.push(line);
  }

  // --- 2. OCSP: responder as ocsp/role.ts wires it, on Postgres ---
  const responder = new OcspResponder({
    issuers: await loadOcspIssuers(knex, vault, logger),
    lookupStatus: databaseStatusLookup(knex, config.ocspUnissuedStatus),
    logger,
    store: databaseResponseStore(knex),
  });
  const server: Server = createOcspServer(responder, { logger });
  const { port } = await listenServer(server, 0, '127.0.0.1');
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const load = startLoadProcess();
  cleanups.push(() => load.stop());

  const bodies = leaves.map((l) => Buffer.from(encodeOcspRequest([certIdFor(subCaDer, l.serial)])).toString('base64'));
  const serials = leaves.map((l) => Buffer.from(serialHexToIntegerBytes(l.serial)).toString('hex'));
  const distinct = { port, bodies, serials, connections: c };
  const hot = { port, bodies: bodies.slice(0, 1), serials: serials.slice(0, 1), connections: c };

  console.log(`\nOCSP: ${int(ocspCerts)} certificates, responder on Postgres with the shared response store; load: ${c} keep-alive connections, POST, SHA-1 CertIDs, no nonce`);
  const presignBefore = { stats: responder.stats(), vault: vault.signatures };
  const presign = await load.run({ ...distinct, total: ocspCerts }, 600_000);
  const presignStats = responder.stats();
  console.log(
    `  pre-signing pass (one request per certificate): ${seconds(presign.elapsedMs)} for ${int(ocspCerts)} ` +
      `(${presign.requestsPerSecond.toFixed(0)} responses/s), ${presignStats.signatures - presignBefore.stats.signatures} responder signatures, ` +
      `${vault.signatures - presignBefore.vault} vault signatures, ${presignStats.cachedResponses} cached, ${presign.errors} errors`,
  );
  if (presign.errors > 0) throw new Error(`pre-signing pass failed: ${presign.firstError}`);
  // JIT warm-up of both request paths (cache hits only).
  await load.run({ ...distinct, total: Math.min(n, 20_000) });
  await load.run({ ...hot, total: Math.min(n, 20_000) });

  interface Round extends LoadResult {
    cpuUsPerRequest: number;
    signatures: number;
    vaultSignatures: number;
    misses: number;
  }
  const results: Record<'distinct' | 'hot', Round[]> = { distinct: [], hot: [] };
  const loadBefore = loadavg()[0]!;
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['distinct', 'hot'] as const) : (['hot', 'distinct'] as const);
    for (const kind of order) {
      const before = { stats: responder.stats(), vault: vault.signatures, cpu: ownCpuMs() };
      const result = await load.run({ ...(kind === 'distinct' ? distinct : hot), total: n });
      const after = { stats: responder.stats(), vault: vault.signatures, cpu: ownCpuMs() };
      results[kind].push({
        ...result,
        cpuUsPerRequest: ((after.cpu - before.cpu) * 1000) / n,
        signatures: after.stats.signatures - before.stats.signatures,
        vaultSignatures: after.vault - before.vault,
        misses: after.stats.cacheMisses - before.stats.cacheMisses,
      });
      if (result.errors > 0) console.warn(`  (${kind} round ${r + 1}: ${result.errors} errors, first: ${result.firstError})`);
    }
  }
  const pick = (rs: Round[]) => [...rs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(rs.length / 2)]!;
  const d = pick(results.distinct);
  const h = pick(results.hot);
  console.log(`  ${rounds} rounds of ${int(n)} requests each, alternating, median round shown`);
  console.log('  case        req/s    p50 ms   p99 ms   server CPU us/req   vault signatures (stats / vault)   cache misses   errors');
  for (const [label, rs, x] of [['distinct', results.distinct, d], ['hot', results.hot, h]] as const) {
    const sum = (f: (r: Round) => number) => rs.reduce((a, b) => a + f(b), 0);
    console.log(
      `  ${label.padEnd(9)} ${x.requestsPerSecond.toFixed(0).padStart(7)}   ${x.latenciesMs.p50.toFixed(2).padStart(6)}   ${x.latenciesMs.p99.toFixed(2).padStart(6)}   ` +
        `${x.cpuUsPerRequest.toFixed(0).padStart(17)}   ${`${sum((q) => q.signatures)} / ${sum((q) => q.vaultSignatures)}`.padStart(32)}   ${String(sum((q) => q.misses)).padStart(12)}   ${sum((q) => q.errors)}`,
    );
  }
  console.log(`  rounds req/s distinct: ${results.distinct.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}; hot: ${results.hot.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')}`);
  const ratio = d.requestsPerSecond / h.requestsPerSecond;
  const cpuRatio = h.cpuUsPerRequest / d.cpuUsPerRequest;
  const loadAfter = loadavg()[0]!;
  console.log(
    `  server CPU per request hot / distinct: ${cpuRatio.toFixed(2)} (does not depend on other processes' load); ` +
      `1-minute load average before / after the rounds: ${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)} on ${availableParallelism()} cores` +
      (Math.max(loadBefore, loadAfter) > availableParallelism() ? ' (the machine was busy with other work: req/s figures are noisy)' : ''),
  );
  const measuredSignatures = [...results.distinct, ...results.hot].reduce((a, x) => a + x.signatures + x.vaultSignatures, 0);
  const errors = [...results.distinct, ...results.hot].reduce((a, x) => a + x.errors, 0);

  console.log('\nsummary');
  for (const line of crlResults) console.log(`  ${line}`);
  console.log(`  OCSP pre-signing ${int(ocspCerts)} responses: ${seconds(presign.elapsedMs)}`);
  console.log(
    `  OCSP distinct / hot: ${d.requestsPerSecond.toFixed(0)} / ${h.requestsPerSecond.toFixed(0)} req/s = ${ratio.toFixed(2)}   goal: >= ${RATIO_GOAL} (${ratio >= RATIO_GOAL ? 'met' : 'MISSED'})`,
  );
  console.log(`  OCSP server CPU per request hot / distinct: ${h.cpuUsPerRequest.toFixed(0)} / ${d.cpuUsPerRequest.toFixed(0)} us = ${cpuRatio.toFixed(2)}`);
  console.log(`  vault signatures during the measured OCSP rounds: ${measuredSignatures}   goal: 0 (${measuredSignatures === 0 ? 'met' : 'MISSED'}); errors: ${errors}`);
  console.log(`  total time with set-up: ${seconds(performance.now() - setupStart)}`);
}

try {
  await main();
} finally {
  await cleanup();
}
