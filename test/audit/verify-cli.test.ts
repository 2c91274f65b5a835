/**
 * `npm run audit -- export` and `verify` against a real database: a sound log verifies; one event row changed by a
 * superuser with the trigger disabled is named by id and index; a checkpoint whose signature was swapped is named.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { createCheckpointer } from '../../shared/audit-log/checkpointer.js';
import { recordAuditEvent } from '../../shared/audit/record.js';
import { loadConfig } from '../../shared/config.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('npm run audit -- export and verify', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let target: { id: string; leaf_index: number };

  const audit = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [...nodeScriptArgs('bin/audit.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  const withTriggerOff = async (sql: string, bindings: unknown[]) => {
    await db.knex.transaction(async (trx) => {
      await trx.raw('ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only');
      await trx.raw(sql, bindings as never);
      await trx.raw('ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only');
    });
  };

  before(async () => {
    db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'audit-cli-'));
    env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: db.url, DATA_DIR: dataDir, JWT_SECRET: 'test-secret-for-audit-cli', LOG_LEVEL: 'silent' };
    const config = loadConfig(env);
    const key = await createKeyVault(config).ensureKey(config.audit.keyName);
    const checkpointer = createCheckpointer({ knex: db.knex, key, origin: config.audit.origin });
    for (let i = 0; i < 30; i += 1) {
      const e = await recordAuditEvent(db.knex, { action: 'api_key.created', actor: { type: 'user', id: `u${i}` }, orgId: null, target: { type: 'api_key', id: `k${i}` }, details: { n: i } });
      if (i === 11) target = e;
      if (i === 14 || i === 29) await checkpointer.checkpoint();
    }
  });
  after(async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports every event as JSON lines in leaf order', async () => {
    const { code, stdout } = await audit('export');
    expect(code).to.equal(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { leaf_index: number; action: string; leaf_hash: string });
    expect(lines.map((l) => l.leaf_index)).to.deep.equal(Array.from({ length: 30 }, (_, i) => i));
    expect(lines[0]).to.include({ action: 'api_key.created' });
  });

  it('verifies a sound log', async () => {
    const { code, stdout } = await audit('verify');
    expect(code, stdout).to.equal(0);
    expect(stdout).to.match(/^audit log OK: 30 events, 2 signed checkpoints/);
  });

  it('names the event a superuser changed with the trigger disabled', async () => {
    await withTriggerOff("UPDATE audit_events SET details = '{\"n\": 999}' WHERE id = ?", [target.id]);
    const { code, stdout } = await audit('verify');
    expect(code).to.equal(1);
    expect(stdout).to.include(`event ${target.id} (leaf ${target.leaf_index})`);
    expect(stdout).to.match(/checkpoint 15: the signed root is not the root of the events as stored/);
  });

  it('names the checkpoint whose hash was rewritten to match an edited row', async () => {
    // The forger recomputes the leaf hash too: the event looks whole, but no signed root covers it any more.
    const { auditEventsInRange } = await import('../../shared/db/repositories/audit-events.js');
    const { recomputedLeafHash } = await import('../../shared/audit/view.js');
    const [row] = await auditEventsInRange(target.leaf_index, target.leaf_index + 1, db.knex);
    await withTriggerOff('UPDATE audit_events SET leaf_hash = ? WHERE id = ?', [recomputedLeafHash(row!), target.id]);
    const { code, stdout } = await audit('verify');
    expect(code).to.equal(1);
    expect(stdout).to.not.include(`event ${target.id}`);
    expect(stdout).to.include('checkpoint 15: the signed root is not the root');
    expect(stdout).to.include('checkpoint 30: the signed root is not the root');
  });

  it('refuses a bad command line with the usage', async () => {
    const { code, stderr } = await audit('verify', '--nope');
    expect(code).to.equal(2);
    expect(stderr).to.include('usage: npm run audit');
  });
});
