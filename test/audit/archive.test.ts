/**
 * Archiving old events (`npm run audit -- export --before TIME --out FILE`) against a real database: only whole
 * ranges up to a checkpoint go; the file is checkable alone and against the database; the rows leave the database in
 * the archive's transaction with an `audit.archived` event; the log still verifies (from the recorded frontier, or
 * wholly with the archive files); proofs from the archived size on still verify in a fresh process, proofs into the
 * archived range are refused by name; a log that does not verify is not archived; nothing is written over a file.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { auditProofs } from '../../api/services/audit.js';
import { createCheckpointer, type Checkpointer } from '../../shared/audit-log/checkpointer.js';
import { verifyConsistency, verifyInclusion } from '../../shared/audit-log/tree.js';
import { recordAuditEvent } from '../../shared/audit/record.js';
import { loadConfig } from '../../shared/config.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ORG = randomUUID();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('npm run audit -- export --before (archiving)', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  let checkpointer: Checkpointer;
  let cutoff: string;
  const file = (name: string) => path.join(dir, name);

  const audit = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [...nodeScriptArgs('bin/audit.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  const record = (i: number) => recordAuditEvent(db.knex, { action: 'api_key.created', actor: { type: 'user', id: `u${i}` }, orgId: ORG, target: { type: 'api_key', id: `k${i}` }, details: { n: i } });
  const leafIndexes = async () => (await db.knex('audit_events').orderBy('leaf_index').pluck('leaf_index')).map(Number);
  const lines = (name: string) => readFileSync(file(name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const rootAt = async (size: number) => Buffer.from(((await db.knex('audit_checkpoints').where({ tree_size: size }).first('root_hash')) as { root_hash: string }).root_hash, 'base64');
  const withTriggerOff = (sql: string, bindings: unknown[]) =>
    db.knex.transaction(async (trx) => {
      await trx.raw('ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only');
      await trx.raw(sql, bindings as never);
      await trx.raw('ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only');
    });

  before(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(path.join(tmpdir(), 'audit-archive-'));
    env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: db.url, DATA_DIR: dir, JWT_SECRET: 'test-secret-for-audit-archive', LOG_LEVEL: 'silent' };
    const config = loadConfig(env);
    const key = await createKeyVault(config).ensureKey(config.audit.keyName);
    checkpointer = createCheckpointer({ knex: db.knex, key, origin: config.audit.origin });
    // Checkpoints at 10, 20 and 30; the cut-off falls between leaves 14 and 15, so only leaves 0 to 9 may go.
    for (let i = 0; i < 30; i += 1) {
      if (i === 15) {
        await pause(5);
        cutoff = new Date().toISOString();
        await pause(5);
      }
      await record(i);
      if (i === 9 || i === 19 || i === 29) await checkpointer.checkpoint();
    }
  });
  after(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a cut-off that is not an ISO 8601 date with its zone, or no --out, with the usage', async () => {
    for (const args of [['--before', 'yesterday', '--out', file('x')], ['--before', '2026-01-31T12:00:00', '--out', file('x')], ['--before', '2026-01-31'], ['--keep']]) {
      const { code, stderr } = await audit('export', ...args);
      expect(code, args.join(' ')).to.equal(2);
      expect(stderr).to.include('usage: npm run audit');
    }
    expect(existsSync(file('x'))).to.equal(false);
  });

  it('with --keep, writes the archive of leaves 0 to 9 (the last checkpoint before the cut-off) and leaves the database as it was', async () => {
    const { code, stderr } = await audit('export', '--before', cutoff, '--out', file('kept.jsonl'), '--keep');
    expect(code, stderr).to.equal(0);
    expect(stderr).to.include('archived leaves 0 to 9 (10 events, up to checkpoint 10)').and.include('kept in the database');
    expect(await leafIndexes()).to.have.length(30);
    const [header, ...events] = lines('kept.jsonl');
    expect(header).to.include({ type: 'audit_archive', version: 1, start: 0, end: 10, before: cutoff });
    expect(header!.checkpoint).to.match(/\n10\n/);
    expect(events.map((e) => e.leaf_index)).to.deep.equal([...Array(10).keys()]);
    expect(events[3]).to.include({ action: 'api_key.created', org_id: ORG });
    expect(statSync(file('kept.jsonl')).mode & 0o777).to.equal(0o600);
    const { code: vcode, stdout } = await audit('verify', '--archive', file('kept.jsonl'));
    expect(vcode, stdout).to.equal(0);
    expect(stdout).to.match(/^audit log OK: 30 events, 3 signed checkpoints/).and.include('1 archive file(s) checked');
  });

  it('archives leaves 0 to 9: the same file, the rows gone in the transaction that records the archive and an audit.archived event', async () => {
    const { code, stderr } = await audit('export', '--before', cutoff, '--out', file('a1.jsonl'));
    expect(code, stderr).to.equal(0);
    expect(stderr).to.include('archived leaves 0 to 9 (10 events, up to checkpoint 10)').and.include('removed from the database');
    expect(readFileSync(file('a1.jsonl'))).to.deep.equal(readFileSync(file('kept.jsonl')));
    expect(await leafIndexes()).to.deep.equal([...Array(21).keys()].map((i) => i + 10));
    const sha256 = createHash('sha256').update(readFileSync(file('a1.jsonl'))).digest('hex');
    const archived = await db.knex('audit_events').where({ leaf_index: 30 }).first();
    expect(archived).to.include({ action: 'audit.archived', org_id: null });
    expect(archived.actor).to.deep.equal({ type: 'operator', command: 'audit export --before' });
    expect(archived.details).to.deep.equal({ start: 0, end: 10, events: 10, before: cutoff, file_sha256: sha256 });
    const [row] = (await db.knex('audit_archives').select('*')) as Array<{ start_index: string | number; end_index: string | number; file_sha256: string; frontier: string[] }>;
    expect([Number(row!.start_index), Number(row!.end_index), row!.file_sha256, row!.frontier.length]).to.deep.equal([0, 10, sha256, 2]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).to.deep.equal([]);
  });

  it('archives nothing more for the same cut-off, and never writes over a file', async () => {
    const again = await audit('export', '--before', cutoff, '--out', file('a1b.jsonl'));
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.include('nothing archived: no signed checkpoint ends between leaf 10 and leaf 15');
    expect(existsSync(file('a1b.jsonl'))).to.equal(false);
    const over = await audit('export', '--before', new Date().toISOString(), '--out', file('a1.jsonl'));
    expect(over.code).to.equal(1);
    expect(over.stderr).to.include('exists: an archive is never written over another file');
    expect(await leafIndexes()).to.have.length(21);
  });

  it('still refuses to delete an event not archived, and any change to an archive record', async () => {
    for (const statement of ['DELETE FROM audit_events WHERE leaf_index = 25', 'DELETE FROM audit_archives', 'UPDATE audit_archives SET end_index = 20', "UPDATE audit_events SET action = 'user.deleted' WHERE leaf_index = 12"]) {
      const err = await db.knex.raw(statement).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message, statement).to.match(/append-only/);
    }
  });

  it('verifies from the recorded frontier without the file, and wholly with it', async () => {
    const without = await audit('verify');
    expect(without.code, without.stdout).to.equal(0);
    expect(without.stdout).to.match(/^audit log OK: 31 events, 3 signed checkpoints/).and.include('leaves 0 to 9 archived (1 range(s)): checked from the frontier recorded at leaf 10, their events not rechecked');
    const withFile = await audit('verify', '--archive', file('a1.jsonl'));
    expect(withFile.code, withFile.stdout).to.equal(0);
    expect(withFile.stdout).to.include('leaves 0 to 9 archived (1 range(s)), checked from 1 archive file(s)');
  });

  it('names the event changed in an archive file, and an archive of other events', async () => {
    const [header, ...events] = readFileSync(file('a1.jsonl'), 'utf8').trim().split('\n');
    const edited = JSON.parse(events[3]!) as Record<string, any>;
    edited.details = { n: 999 };
    writeFileSync(file('edited.jsonl'), [header, ...events.slice(0, 3), JSON.stringify(edited), ...events.slice(4)].join('\n') + '\n');
    const bad = await audit('verify', '--archive', file('edited.jsonl'));
    expect(bad.code).to.equal(1);
    expect(bad.stdout).to.include(`event ${edited.id} (leaf 3) in archive ${file('edited.jsonl')}: its content (api_key.created`);
    expect(bad.stdout).to.include('its events do not make the signed root of its checkpoint');
    writeFileSync(file('short.jsonl'), [header, ...events.slice(0, 4), ...events.slice(5)].join('\n') + '\n');
    const short = await audit('verify', '--archive', file('short.jsonl'));
    expect(short.code).to.equal(1);
    expect(short.stdout).to.include('leaf 5 where leaf 4 was due');
  });

  it('serves proofs from the archived size on in a fresh process, and refuses by name a consistency proof into the archived range', async () => {
    const proofs = auditProofs(db.knex);
    const c = await proofs.consistency(10, 30);
    expect(verifyConsistency(10, 30, c.proof.map((p) => Buffer.from(p, 'base64')), await rootAt(10), await rootAt(30))).to.equal(true);
    const event = (await db.knex('audit_events').where({ leaf_index: 17 }).first()) as { id: string; leaf_hash: string };
    const inclusion = await proofs.inclusion(ORG, event.id, 30);
    expect(verifyInclusion(Buffer.from(event.leaf_hash, 'base64'), 17, 30, inclusion.audit_path.map((p) => Buffer.from(p, 'base64')), await rootAt(30))).to.equal(true);
    const refused = await proofs.consistency(5, 30).then(
      () => undefined,
      (e: { code: string; status: number; message: string }) => e,
    );
    expect(refused).to.include({ code: 'archived', status: 404 });
    expect(refused!.message).to.include('the first 10 events are archived');
  });

  it('does not archive a log that does not verify: no file, no row removed', async () => {
    const [row] = (await db.knex('audit_events').where({ leaf_index: 15 }).select('id', 'details')) as Array<{ id: string; details: unknown }>;
    await withTriggerOff("UPDATE audit_events SET details = '{\"n\": 999}' WHERE id = ?", [row!.id]);
    const { code, stderr } = await audit('export', '--before', new Date().toISOString(), '--out', file('bad.jsonl'));
    expect(code).to.equal(1);
    expect(stderr).to.include(`nothing archived: event ${row!.id} (leaf 15) does not hash to its leaf hash`);
    expect(readdirSync(dir).filter((f) => f.startsWith('bad.jsonl'))).to.deep.equal([]);
    expect(await leafIndexes()).to.have.length(21);
    await withTriggerOff('UPDATE audit_events SET details = ? WHERE id = ?', [JSON.stringify(row!.details), row!.id]);
  });

  it('archives the next range from where the last ended; both files together check every checkpoint again', async () => {
    await checkpointer.checkpoint(); // 31: the audit.archived event included
    const { code, stderr } = await audit('export', '--before', new Date().toISOString(), '--out', file('a2.jsonl'));
    expect(code, stderr).to.equal(0);
    expect(stderr).to.include('archived leaves 10 to 30 (21 events, up to checkpoint 31)');
    const [header] = lines('a2.jsonl');
    const [first] = (await db.knex('audit_archives').orderBy('end_index').select('frontier')) as Array<{ frontier: string[] }>;
    expect(header).to.include({ start: 10, end: 31 });
    expect(header!.frontier_start).to.deep.equal(first!.frontier);
    expect(await leafIndexes()).to.deep.equal([31]);

    const without = await audit('verify');
    expect(without.code, without.stdout).to.equal(0);
    expect(without.stdout).to.match(/^audit log OK: 32 events, 4 signed checkpoints/).and.include('leaves 0 to 30 archived (2 range(s))');
    const both = await audit('verify', '--archive', file('a2.jsonl'), '--archive', file('a1.jsonl'));
    expect(both.code, both.stdout).to.equal(0);
    expect(both.stdout).to.include('leaves 0 to 30 archived (2 range(s)), checked from 2 archive file(s)');
    // The second file alone is checkable: its frontier_start and its events make checkpoint 31's root.
    const second = await audit('verify', '--archive', file('a2.jsonl'));
    expect(second.code, second.stdout).to.equal(0);
    expect(second.stdout).to.include('1 archive file(s) checked');
  });
});
