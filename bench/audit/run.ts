/**
 * bench/audit: what the audit log costs.
 *
 * 1. Write overhead per request: N small transactions (one insert each, CONCURRENCY at a time) with and without
 *    their audit event, in the same run on the same Postgres; the ratio and the added milliseconds.
 * 2. Records EVENTS (100k) events in batches, then times inclusion and consistency proofs over them (the API's
 *    in-memory tree, loaded from the database first) against the limit of 10 ms per proof.
 * 3. Verify: `npm run audit -- verify`'s check over the 100k stored events, and the same recomputation (RFC 8785 +
 *    SHA-256 per event, the tree, a consistency proof per checkpoint) for 1M events in memory.
 * 4. Archiving (`export --before`) every checkpointed event to a temporary file, then verify from the recorded
 *    frontier (the archived events not rechecked) and with the file.
 *
 *   npx tsx bench/audit/run.ts [events=100000] [requests=2000]
 * Needs Postgres (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres); makes and drops its own database.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveAuditLog } from '../../shared/audit-log/archive.js';
import { createCheckpointer } from '../../shared/audit-log/checkpointer.js';
import { LogTreeCache } from '../../shared/audit-log/tree-cache.js';
import { MerkleLog } from '../../shared/audit-log/tree.js';
import { verifyAuditLog } from '../../shared/audit-log/verify.js';
import { auditLeafHash } from '../../shared/audit/canonical.js';
import { recordAuditEvent, recordAuditEvents, type AuditEventInput } from '../../shared/audit/record.js';
import { createTestDatabase } from '../../test/support/database.js';

const EVENTS = Number(process.argv[2] ?? 100_000);
const REQUESTS = Number(process.argv[3] ?? 2000);
const CONCURRENCY = 8;
const MILLION = 1_000_000;

const event = (i: number): AuditEventInput => ({
  action: 'sign.signed',
  actor: { type: 'api_key', id: `7d3f0e4c-0000-4000-8000-${String(i).padStart(12, '0')}` },
  orgId: '6c0e3e0c-8a5e-4d54-9f0e-3f7c0e2b9a11',
  target: { type: 'sign_job', id: `job-${i}` },
  details: { file_sha256: 'ab'.repeat(32), certificate_serial: '4f1c2a9e77', mime_type: 'image/jpeg', size: 1_234_567 },
});

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

async function pool(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await work(next++);
  }));
}

/** A software key with the vault's interface (ES384, raw r||s): signing is not what is measured here. */
function localKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  return {
    name: 'bench',
    publicKeySpki: publicKey.export({ format: 'der', type: 'spki' }),
    signEs384: async (data: Uint8Array) => sign('sha384', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
  };
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const { knex } = db;
  const f = (ms: number) => ms.toFixed(3).padStart(9);
  try {
    process.stdout.write(`Postgres; ${REQUESTS} requests at concurrency ${CONCURRENCY}; ${EVENTS.toLocaleString('en-US')} events\n\n`);
    await knex.raw('CREATE TABLE bench_changes (id bigserial PRIMARY KEY, v text NOT NULL)');
    const change = (trx: typeof knex, i: number) => trx('bench_changes').insert({ v: `change ${i}` });
    // Warm both paths, then alternate to share the machine's noise.
    await pool(200, (i) => knex.transaction(async (trx) => void (await change(trx, i))));
    const [, plain] = await timed(() => pool(REQUESTS, (i) => knex.transaction(async (trx) => void (await change(trx, i)))));
    const [, audited] = await timed(() =>
      pool(REQUESTS, (i) =>
        knex.transaction(async (trx) => {
          await change(trx, i);
          await recordAuditEvent(trx, event(i));
        }),
      ),
    );
    const perPlain = plain / REQUESTS;
    const perAudited = audited / REQUESTS;
    process.stdout.write(`1. write overhead: ${f(perPlain)} ms/request without the event, ${f(perAudited)} with it: +${(perAudited - perPlain).toFixed(3)} ms, x${(perAudited / perPlain).toFixed(2)}\n`);

    const [, recordMs] = await timed(async () => {
      for (let i = 0; i < EVENTS; i += 1000) await recordAuditEvents(knex, Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => event(i + j)));
    });
    const key = localKey();
    const checkpointer = createCheckpointer({ knex, key, origin: 'bench.example/audit' });
    const [, checkpointMs] = await timed(() => checkpointer.checkpoint());
    process.stdout.write(`2. recorded ${EVENTS.toLocaleString('en-US')} events in ${(recordMs / 1000).toFixed(1)} s (batches of 1000: ${((recordMs / EVENTS) * 1000).toFixed(1)} µs/event); first checkpoint over them ${checkpointMs.toFixed(0)} ms\n`);

    const cache = new LogTreeCache(knex);
    const total = REQUESTS + EVENTS;
    const [tree, loadMs] = await timed(() => cache.upTo(total));
    const PROOFS = 2000;
    const [, inclusionMs] = await timed(async () => {
      for (let i = 0; i < PROOFS; i += 1) {
        const size = total - (i % 100);
        tree.inclusionProof(Math.floor(Math.random() * size), size);
      }
    });
    const [, consistencyMs] = await timed(async () => {
      for (let i = 0; i < PROOFS; i += 1) tree.consistencyProof(1 + Math.floor(Math.random() * (total - 1)), total);
    });
    const perInclusion = inclusionMs / PROOFS;
    const perConsistency = consistencyMs / PROOFS;
    process.stdout.write(`   proofs over ${total.toLocaleString('en-US')} leaves: tree loaded in ${loadMs.toFixed(0)} ms once; inclusion ${f(perInclusion)} ms, consistency ${f(perConsistency)} ms (limit 10 ms: ${perInclusion < 10 && perConsistency < 10 ? 'within' : 'OVER'})\n`);

    const [report, verifyMs] = await timed(() => verifyAuditLog({ knex, publicKeySpki: key.publicKeySpki, origin: 'bench.example/audit', baseUrl: 'http://localhost' }));
    if (report.problems.length) throw new Error(`verify found problems: ${JSON.stringify(report.problems.slice(0, 3))}`);
    process.stdout.write(`3. verify over the database: ${report.events.toLocaleString('en-US')} events, ${report.checkpoints} checkpoint, ${(verifyMs / 1000).toFixed(1)} s (${((verifyMs / report.events) * 1000).toFixed(1)} µs/event)\n`);

    const [, millionMs] = await timed(async () => {
      const big = new MerkleLog();
      const time = new Date().toISOString();
      for (let i = 0; i < MILLION; i += 1) {
        const e = event(i);
        big.append(auditLeafHash({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, time, org_id: e.orgId, actor: e.actor, action: e.action, target: { ...e.target! }, outcome: 'success', details: e.details as never }));
        if ((i + 1) % 250_000 === 0) big.consistencyProof(i + 1 - 250_000 || 1, i + 1);
      }
      big.root();
    });
    process.stdout.write(`   the same recomputation for ${MILLION.toLocaleString('en-US')} events in memory: ${(millionMs / 1000).toFixed(1)} s (limit 60 s: ${millionMs < 60_000 ? 'within' : 'OVER'})\n`);

    const dir = mkdtempSync(path.join(tmpdir(), 'bench-audit-'));
    try {
      const out = path.join(dir, 'archive.jsonl');
      const verifyDeps = { knex, publicKeySpki: key.publicKeySpki, origin: 'bench.example/audit', baseUrl: 'http://localhost' };
      const [archived, archiveMs] = await timed(() => archiveAuditLog({ ...verifyDeps, before: new Date(Date.now() + 1000), out }));
      if (!archived.archived) throw new Error(archived.reason);
      const [fromFrontier, frontierMs] = await timed(() => verifyAuditLog(verifyDeps));
      const [withFile, fileMs] = await timed(() => verifyAuditLog({ ...verifyDeps, archives: [out] }));
      if (fromFrontier.problems.length || withFile.problems.length) throw new Error('verify after archiving found problems');
      process.stdout.write(
        `4. archived ${(archived.end - archived.start).toLocaleString('en-US')} events (written, read back and checked, then deleted) in ${(archiveMs / 1000).toFixed(1)} s; verify then ${(frontierMs / 1000).toFixed(2)} s from the recorded frontier, ${(fileMs / 1000).toFixed(1)} s with the archive file\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await db.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
