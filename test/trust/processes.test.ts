/**
 * The real entry points as separate processes on one Postgres database: the operator CLI (bin/pki.ts), the
 * ocsp process (ocsp/main.ts) and the scheduler (scheduler/main.ts). A revocation by the CLI reaches the
 * running OCSP process through LISTEN/NOTIFY.
 */
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Certificate } from '../../shared/db/repositories/certificates.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { openssl, writePems } from './support.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('trust: CLI, ocsp and scheduler processes', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];
  const outputs: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'trust-proc-'));

  before(async function () {
    db = await createTestDatabase();
    env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'trust-proc-data-')),
      JWT_SECRET: 'test-secret-for-processes',
      OCSP_PORT: '0',
      OPS_PORT: '0',
      CRL_PORT: '0',
      TSA_PORT: '0',
      OCSP_URL: 'http://ocsp.proc.test',
      CRL_URL: 'http://crl.proc.test',
      LOG_LEVEL: 'info',
    };
  });

  after(async function () {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await db?.drop();
    for (const d of [dir, env?.DATA_DIR]) if (d) rmSync(d, { recursive: true, force: true });
  });

  function pki(...args: string[]): Promise<Run> {
    return new Promise((resolve) => {
      execFile(process.execPath, [...nodeScriptArgs('bin/pki.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' }, (err, stdout, stderr) => {
        outputs.push(stdout, stderr);
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  /** Starts a role's main.ts and resolves with the first JSON log line whose msg matches. */
  async function startRole(file: string, msg: RegExp): Promise<{ child: ChildProcess; line: Record<string, unknown> }> {
    const child = spawn(process.execPath, nodeScriptArgs(file), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let buffered = '';
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        outputs.push(d.toString());
        for (const text of buffered.split('\n')) {
          try {
            const parsed = JSON.parse(text) as Record<string, unknown>;
            if (typeof parsed.msg === 'string' && msg.test(parsed.msg)) resolve(parsed);
          } catch {
            // a partial line
          }
        }
      });
      child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before "${msg}": ${buffered}${stderr}`)));
    });
    return { child, line };
  }

  async function stop(child: ChildProcess): Promise<number | null> {
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    return code;
  }

  it('usage: help exits 0; no command, an unknown one or a bad revoke line exits 2 before opening anything', async function () {
    const [help, none, unknown, noReason, badReason] = await Promise.all([
      pki('help'),
      pki(),
      pki('frobnicate'),
      pki('revoke', '0a1b'),
      pki('revoke', '0a1b', '--reason', 'bored'),
    ]);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('revoke <serial> --reason <reason>');
    expect([none.code, unknown.code, noReason.code, badReason.code]).to.deep.equal([2, 2, 2, 2]);
    expect(unknown.stderr).to.include('unknown command "frobnicate"');
    expect(noReason.stderr).to.include('revoke needs --reason');
    expect(badReason.stderr).to.include('"bored" is not a revocation reason');
  });

  it('init issues the chain; list shows it as a table', async function () {
    const init = await pki('init');
    expect(init.code, init.stderr).to.equal(0);
    expect(init.stdout).to.match(/^root +[0-9a-f]{32} {2}issued/m);
    expect(init.stdout).to.match(/^leaf +[0-9a-f]{32} {2}issued/m);
    expect(init.stdout).to.match(/^tsa +[0-9a-f]{32} {2}issued .*Time Stamping/m);
    expect(init.stdout).to.include('leaf.crl: issued CRL number 1');
    const list = await pki('list');
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^ROLE +ORGANISATION +SERIAL +SUBJECT +NOT_AFTER +STATUS$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).to.deep.equal(['root', 'sub_ca', 'leaf', 'tsa']);
    for (const l of lines.slice(1)) expect(l).to.match(/valid \*current$/);
  });

  it('a revocation by the CLI reaches the running ocsp process; the scheduler process starts and stops', async function () {
    // Independent steps run side by side: each process spends a second or two loading.
    const [{ child: ocsp, line }, unknown] = await Promise.all([
      startRole('ocsp/main.ts', /OCSP responder, CRL host and TSA listening/),
      pki('revoke', '00ff', '--reason', 'keyCompromise'),
    ]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('no certificate with serial ff');
    const ocspUrl = `http://127.0.0.1:${line.ocspPort as number}/`;
    const [root, subCa, leaf] = await Promise.all(['root', 'sub_ca', 'leaf'].map((role) => Certificate.query(db.knex).findOne({ role })));
    const f = writePems(dir, { root: root!, subCa: subCa!, leaf: leaf! });
    const ask = () => openssl(['ocsp', '-no_nonce', '-issuer', f.subCa!, '-cert', f.leaf!, '-url', ocspUrl, '-CAfile', f.root!], dir);
    const good = await ask();
    expect(good.output).to.include('Response verify OK');
    expect(good.stdout).to.match(/leaf\.pem: good/);


    const revoked = await pki('revoke', leaf!.serial, '--reason', 'keyCompromise');
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.include(`leaf ${leaf!.serial} revoked (keyCompromise`);
    expect(revoked.stdout).to.include('leaf.crl: issued CRL number 2, next update');
    // The notice travels asynchronously to the other process: ask until it has arrived (bounded).
    let answer = await ask();
    for (let i = 0; i < 50 && !/leaf\.pem: revoked/.test(answer.stdout); i++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await ask();
    }
    expect(answer.output).to.include('Response verify OK');
    expect(answer.stdout).to.match(/leaf\.pem: revoked/);
    expect(answer.stdout).to.include('Reason: keyCompromise');

    const [{ child: scheduler, line: checked }, published] = await Promise.all([
      startRole('scheduler/main.ts', /CRL checked/),
      pki('publish-crls'),
    ]);
    expect(checked).to.include({ action: 'kept', why: 'start-up' });
    expect([await stop(scheduler), await stop(ocsp)]).to.deep.equal([0, 0]);
    expect(published.stdout).to.include('leaf.crl: issued CRL number 3');
    expect(published.stdout).to.include('sub-ca.crl: issued CRL number 2');
  });

  it("rotates, lists and revokes an organisation's signing certificate; bad organisation ids exit 2", async function () {
    const orgId = '2f0c6a52-3c55-4c1e-9d7e-0a2b3c4d5e6f';
    await db.knex('organisations').insert({ id: orgId, name: 'Daily Planet' });
    const rotated = await pki('rotate-org', orgId);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.match(/^leaf +[0-9a-f]{32} {2}issued {2}CN=Daily Planet,O=Daily Planet/m);
    const list = await pki('list', '--org', orgId);
    const rows = list.stdout.trim().split('\n').slice(1);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include(orgId).and.to.match(/valid \*current$/);
    const revoked = await pki('revoke-org', orgId, '--reason', 'keyCompromise');
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.match(/revoked \(keyCompromise/);
    expect((await pki('list', '--org', orgId)).stdout).to.match(/revoked \(keyCompromise\)/);
    // Nothing left to revoke: exit 1 with the reason; malformed ids are usage errors.
    const again = await pki('revoke-org', orgId, '--reason', 'keyCompromise');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('has no valid signing certificate');
    const [badId, noReason] = await Promise.all([pki('rotate-org', 'not-a-uuid'), pki('revoke-org', orgId)]);
    expect([badId.code, noReason.code]).to.deep.equal([2, 2]);
  });

  it('never prints key material', function () {
    for (const text of outputs) expect(text).to.not.match(/PRIVATE KEY|"d":/);
  });
});
