/**
 * `npm run pki -- rotate-ocsp`: the operator asks the scheduler (the one role issuing with CA keys) for a new
 * delegated OCSP responder certificate now. Issued while the scheduler runs, the request stands while it does not,
 * and every step is an audit event.
 */
import { expect } from 'chai';
import { startIssuanceJob, type IssuanceJob } from '../../scheduler/issuance-job.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { ensureOcspResponder } from '../../shared/pki/ocsp-responder.js';
import { until } from '../support/until.js';
import { pkiCli, startTrust, type TrustFixture } from './support.js';

describe('trust: the pki CLI asks the scheduler for a new OCSP responder certificate', function () {
  this.timeout(120_000);
  let t: TrustFixture;
  let issuer: IssuanceJob | undefined;
  let pki: ReturnType<typeof pkiCli>;

  before(async () => {
    t = await startTrust();
    await initPki(t.deps);
    pki = pkiCli(t);
  });
  after(async () => {
    await issuer?.stop();
    await t?.close();
  });

  const responders = async () => (await t.db.knex('certificates').where({ role: 'ocsp' }).orderBy('created_at').select('serial')).map((r: { serial: string }) => r.serial);
  const audit = async (action: string) => (await t.db.knex('audit_events').where({ action }).orderBy('leaf_index').select('actor', 'details', 'outcome')) as { actor: Record<string, string>; details: Record<string, unknown>; outcome: string }[];

  it('refuses a bad command line (exit 2)', async () => {
    expect((await pki('rotate-ocsp', '--wait', '0')).code).to.equal(2);
    expect((await pki('rotate-ocsp', 'extra')).code).to.equal(2);
  });

  it('issues a new responder certificate through the scheduler, though the current one is far from expiry', async () => {
    const current = (await ensureOcspResponder(t.deps)).certificate;
    issuer = startIssuanceJob(t.deps, createLogger('silent', 'issuance'), 20);
    const rotated = await pki('rotate-ocsp');
    expect(rotated.code, rotated.stderr).to.equal(0);
    const serials = await responders();
    expect(serials).to.have.length(2);
    expect(serials[0]).to.equal(current.serial);
    expect(rotated.stdout).to.match(new RegExp(`^ocsp +${serials[1]}  issued  CN=`));
    // Asked by the operator, issued by the scheduler, the command itself: each an audit event.
    const requested = (await audit('certificate.requested')).filter((e) => e.details.kind === 'ocsp');
    expect(requested.map((e) => e.actor)).to.deep.equal([{ type: 'operator', command: 'pki rotate-ocsp' }]);
    const issued = (await audit('certificate.issued')).filter((e) => e.details.role === 'ocsp');
    expect(issued.map((e) => e.actor.role)).to.deep.equal(['scheduler', 'scheduler']);
    const commands = (await audit('operator.command')).filter((e) => e.actor.command === 'pki rotate-ocsp');
    expect(commands.map((e) => e.outcome)).to.deep.equal(['success']);
  });

  it('without a scheduler the request stands (exit 1), and is answered once the scheduler runs', async () => {
    await issuer!.stop();
    issuer = undefined;
    const waited = await pki('rotate-ocsp', '--wait', '1');
    expect(waited.code).to.equal(1);
    expect(waited.stderr).to.match(/not answered within 1 s: is the scheduler running\?/);
    expect(await responders()).to.have.length(2);
    issuer = startIssuanceJob(t.deps, createLogger('silent', 'issuance'), 20);
    await until('the standing request answered', async () => (await responders()).length === 3);
  });
});
