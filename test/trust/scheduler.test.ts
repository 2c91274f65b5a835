/** The scheduler's CRL job on Postgres: start-up check, scheduled ticks, several schedulers, retries. */
import { expect } from 'chai';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CronScheduleError, startCrlJob, type CrlJob } from '../../scheduler/crl-job.js';
import { Crl } from '../../shared/db/repositories/crls.js';
import { initPki } from '../../shared/pki/init.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { VaultUnavailableError, type KeyVault } from '../../shared/vault/types.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { startTrust, type TrustFixture } from './support.js';

const NEVER = '0 0 1 1 *'; // once a year: ticks in these tests are explicit

describe('trust: scheduler CRL job', function () {
  let t: TrustFixture;
  const jobs: CrlJob[] = [];
  const crlNumber = (name: string) => parseCrl(new Uint8Array(readFileSync(path.join(t.crlDir, name)))).crlNumber;

  before(async function () {
    t = await startTrust();
  });

  afterEach(async function () {
    await Promise.all(jobs.splice(0).map((j) => j.stop()));
  });

  after(async function () {
    await t?.close();
  });

  function start(logger: RecordingLogger, options: { schedule?: string; retryMs?: number; vault?: KeyVault } = {}): CrlJob {
    const job = startCrlJob({ ...t.deps, vault: options.vault ?? t.vault }, logger, { schedule: options.schedule ?? NEVER, retryMs: options.retryMs });
    jobs.push(job);
    return job;
  }

  it('refuses an invalid cron expression', function () {
    expect(() => startCrlJob(t.deps, new RecordingLogger(), { schedule: 'every monday' })).to.throw(CronScheduleError, /CRL_SCHEDULE/);
  });

  it('at start-up without a PKI: says so, issues nothing', async function () {
    const logger = new RecordingLogger();
    await start(logger).started;
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.obj.crl)).to.deep.equal(['leaf.crl', 'sub-ca.crl']);
    expect(await Crl.query(t.db.knex).resultSize()).to.equal(0);
  });

  it('at start-up: rewrites missing files from the database without issuing a new CRL', async function () {
    await initPki(t.deps);
    const numbers = [crlNumber('leaf.crl'), crlNumber('sub-ca.crl')];
    for (const f of ['leaf.crl', 'sub-ca.crl', 'root-ca.cer']) rmSync(path.join(t.crlDir, f));
    await start(new RecordingLogger()).started;
    expect([crlNumber('leaf.crl'), crlNumber('sub-ca.crl')]).to.deep.equal(numbers);
    expect(existsSync(path.join(t.crlDir, 'root-ca.cer'))).to.equal(true);
    expect(await Crl.query(t.db.knex).resultSize()).to.equal(2);
  });

  it('at start-up: issues a CRL past half its life (two schedulers: one new CRL)', async function () {
    const before = crlNumber('leaf.crl')!;
    // Make the newest leaf.crl four days old.
    const newest = (await Crl.query(t.db.knex).join('certificates', 'certificates.id', 'crls.issuer_id').where('certificates.role', 'sub_ca').select('crls.id').first())!;
    await Crl.query(t.db.knex).findById(newest.id).patch({
      this_update: new Date(Date.now() - 4 * 24 * 3600_000),
      next_update: new Date(Date.now() + 3 * 24 * 3600_000),
    });
    const [a, b] = [new RecordingLogger(), new RecordingLogger()];
    await Promise.all([start(a).started, start(b).started]);
    expect(crlNumber('leaf.crl')).to.equal(before + 1n);
    const actions = [...a.entries, ...b.entries].filter((e) => e.obj.crl === 'leaf.crl').map((e) => e.obj.action).sort();
    expect(actions).to.deep.equal(['kept', 'published']);
  });

  it('a tick issues both CRLs; two schedulers ticking together issue them once', async function () {
    const before = [crlNumber('leaf.crl')!, crlNumber('sub-ca.crl')!];
    const [a, b] = [start(new RecordingLogger()), start(new RecordingLogger())];
    await Promise.all([a.started, b.started]);
    await Promise.all([a.tick(), b.tick()]);
    expect([crlNumber('leaf.crl'), crlNumber('sub-ca.crl')]).to.deep.equal([before[0]! + 1n, before[1]! + 1n]);
  });

  it('runs on its cron schedule', async function () {
    const logger = new RecordingLogger();
    const ticked = logger.next((e) => e.obj.why === 'schedule' && e.obj.crl === 'sub-ca.crl');
    const before = crlNumber('sub-ca.crl')!;
    start(logger, { schedule: '* * * * * *' }); // every second
    await ticked;
    expect(crlNumber('sub-ca.crl')! > before).to.equal(true);
  });

  it('retries a failed run until the vault answers again', async function () {
    let down = true;
    const flaky: KeyVault = {
      kind: 'flaky',
      ensureKey: (n) => t.vault.ensureKey(n),
      getKey: async (n) => {
        if (down) throw new VaultUnavailableError('vault down (test)');
        return t.vault.getKey(n);
      },
    };
    const logger = new RecordingLogger();
    const failed = logger.next((e) => e.level === 'error');
    const before = crlNumber('leaf.crl')!;
    const job = start(logger, { vault: flaky, retryMs: 20 });
    await job.started;
    const recovered = logger.next((e) => e.obj.crl === 'sub-ca.crl' && e.obj.why === 'retry of schedule');
    void job.tick();
    await failed;
    down = false;
    await recovered;
    expect(crlNumber('leaf.crl')).to.equal(before + 1n);
  });
});
