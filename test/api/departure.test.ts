/**
 * A person who leaves (their user deleted): in the deletion's own transaction their identity certificates from the
 * service CA are revoked (affiliationChanged), which OCSP answers at once with the scheduler stopped, and those from
 * the organisation's external CA are recorded revoked, their open requests withdrawn; once the scheduler runs,
 * leaf.crl lists them. A sign job queued to sign as them fails; another organisation's person keeps everything.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { startIssuanceJob, type IssuanceJob } from '../../scheduler/issuance-job.js';
import { Crl } from '../../shared/db/repositories/crls.js';
import { createLogger } from '../../shared/logger.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { PostgresPkiEvents } from '../../shared/pki/pki-events.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps } from '../../workers/sign-job/deps.js';
import { addOrgUser, bearer, clearSignQueue, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { makeOpensslCa, type OpensslCa } from '../support/openssl-ca.js';
import { askServiceOcsp } from '../support/service-ocsp.js';
import { until } from '../support/until.js';

const JPEG = readFileSync(new URL('../fixtures/small.jpg', import.meta.url));
const REQUESTS = '/auth/me/identity-certificate/requests';

interface Person {
  access: string;
  userId: string;
  orgId: string;
  /** Their certificate from the service CA. */
  serviceSerial: string;
  servicePem: string;
  /** Their accepted certificate from the organisation's external CA. */
  externalRequestId: string;
}

describe('a person who leaves their organisation', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'departure-'));
  let api: TestApi;
  let pki: InitPkiResult;
  let events: PostgresPkiEvents;
  let issuer: IssuanceJob;
  let ocsp: OcspRole;
  let ca: OpensslCa;
  let a: Account;
  let b: Account;
  let jane: Person;
  let peter: Person;
  let janeOpenRequest: string;
  let queuedJob: string;
  const files: Record<string, string> = {};

  const startIssuer = () => startIssuanceJob({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config, events }, createLogger('silent', 'issuance'));

  const ocspStatus = (certificatePem: string) => askServiceOcsp(dir, { root: files.root!, subCa: files.subCa! }, ocsp.ocspPort, certificatePem);

  const signAsPerson = async (access: string) => {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(access)).attach('file', JPEG, 'small.jpg').expect(201);
    return request(api.app).post('/v1/media/sign').set(bearer(access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Byline', creator: 'Desk' }, identity: { roles: ['cawg.creator'] } });
  };

  /** A signer of the admin's organisation with a name, a service CA certificate and then an external CA one. */
  async function person(admin: Account, name: string): Promise<Person> {
    const user = await addOrgUser(api.app, admin, 'signer');
    await request(api.app).patch('/auth/me').set(bearer(user.access)).send({ name }).expect(200);
    const service = (await request(api.app).post('/auth/me/identity-certificate').set(bearer(user.access)).expect(201)).body;
    const asked = (await request(api.app).post(REQUESTS).set(bearer(user.access)).expect(201)).body;
    const accepted = await request(api.app).post(`${REQUESTS}/${asked.request_id}/chain`).set(bearer(user.access)).send({ chain_pem: ca.issue(asked.csr_pem) + ca.intermediatePem });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    return { access: user.access, userId: user.userId, orgId: user.orgId, serviceSerial: service.serial, servicePem: service.certificate_pem, externalRequestId: asked.request_id };
  }

  const externalRow = (requestId: string) => api.db.knex('external_certificate_requests').where({ id: requestId }).first('status', 'error_code', 'revoked_at', 'revocation_reason', 'user_id');
  const certificateRow = (serial: string) => api.db.knex('certificates').where({ serial }).first('revoked_at', 'revocation_reason');

  before(async () => {
    ca = makeOpensslCa('Newsroom');
    api = await startTestApi({}, { issuer: false });
    const vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    events = new PostgresPkiEvents(api.db.knex, api.db.url);
    issuer = startIssuer();
    ocsp = await startOcspRole(api.config, api.db.knex, vault, createLogger('silent', 'ocsp'), { events, host: '127.0.0.1' });
    for (const [name, der] of Object.entries({ root: pki.root.der, subCa: pki.subCa.der })) {
      files[name] = path.join(dir, `${name}.pem`);
      writeFileSync(files[name]!, new X509Certificate(der).toString());
    }
    a = await registerAccount(api.app, 'Daily Planet');
    b = await registerAccount(api.app, 'Daily Bugle');
    for (const admin of [a, b]) await request(api.app).post('/org/trust-anchors').set(bearer(admin.access)).send({ pem: ca.rootPem, label: 'Newsroom CA' }).expect(201);
    jane = await person(a, 'Jane Doe');
    peter = await person(b, 'Peter Parker');
    janeOpenRequest = (await request(api.app).post(REQUESTS).set(bearer(jane.access)).expect(201)).body.request_id;
    const queued = await signAsPerson(jane.access);
    expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
    queuedJob = queued.body.job_id;
  });
  after(async () => {
    await clearSignQueue(api.config);
    await issuer?.stop();
    await ocsp?.();
    await events?.close();
    await api?.close();
    ca?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('revokes their service CA certificates in the deletion itself: OCSP answers revoked (affiliationChanged) with the scheduler stopped', async () => {
    // OCSP holds a signed "good" answer for it, which only the announcement makes it drop.
    expect(await ocspStatus(jane.servicePem)).to.match(/: good/);
    await issuer.stop();
    await request(api.app).delete(`/org/users/${jane.userId}`).set(bearer(a.access)).expect(204);

    expect(await certificateRow(jane.serviceSerial)).to.include({ revocation_reason: 'affiliationChanged' }).and.have.property('revoked_at').that.is.instanceOf(Date);
    const status = await until('the OCSP answer revoked', async () => {
      const s = await ocspStatus(jane.servicePem);
      return /: revoked/.test(s) ? s : undefined;
    }, 10_000);
    expect(status).to.include('Reason: affiliationChanged');
    const deleted = await api.db.knex('audit_events').where({ action: 'user.deleted' }).whereRaw("target->>'id' = ?", [jane.userId]).first('details');
    expect(deleted.details).to.deep.include({ identity_certificates_revoked: [jane.serviceSerial] });
  });

  it('records their external CA certificate revoked (affiliationChanged) and withdraws their open request', async () => {
    expect(await externalRow(jane.externalRequestId)).to.deep.include({ status: 'accepted', revocation_reason: 'affiliationChanged', user_id: null }).and.have.property('revoked_at').that.is.instanceOf(Date);
    expect(await externalRow(janeOpenRequest)).to.deep.include({ status: 'failed', error_code: 'withdrawn', revoked_at: null });
  });

  it('their sign job queued before fails with identity_certificate_missing; their session is gone (401)', async () => {
    const worker = signJobDeps({ config: api.config, knex: api.db.knex, vault: createKeyVault(api.config), events: new LocalJobEvents(), logger: createLogger('silent', 'worker') });
    const thrown = await processSignJob(worker, queuedJob, { number: 1, final: true }).then(() => undefined, (err: unknown) => err);
    expect(thrown).to.be.instanceOf(Error).and.have.property('message').that.matches(/removed from the organisation/);
    const job = await api.db.knex('sign_jobs').where({ id: queuedJob }).first('status', 'error_code');
    expect(job).to.deep.equal({ status: 'failed', error_code: 'identity_certificate_missing' });
    const again = await request(api.app).post('/v1/media/sign').set(bearer(jane.access)).send({ upload_id: '00000000-0000-4000-8000-000000000000', manifest: { title: 'Byline', creator: 'Desk' }, identity: { roles: ['cawg.creator'] } });
    expect(again.status).to.equal(401);
  });

  it('once the scheduler runs, leaf.crl lists the revoked certificate', async () => {
    issuer = startIssuer();
    const entry = await until('leaf.crl listing it', async () => {
      const newest = await Crl.query(api.db.knex).where({ issuer_id: pki.subCa.id }).orderBy('crl_number', 'desc').first();
      return newest && parseCrl(newest.der).revoked.find((e) => e.serialHex === jane.serviceSerial);
    });
    expect(entry.reason).to.equal('affiliationChanged');
  });

  it("leaves another organisation's person untouched: both certificates in force, and they still sign as themselves", async () => {
    expect(await certificateRow(peter.serviceSerial)).to.deep.equal({ revoked_at: null, revocation_reason: null });
    expect(await ocspStatus(peter.servicePem)).to.match(/: good/);
    expect(await externalRow(peter.externalRequestId)).to.deep.include({ status: 'accepted', revoked_at: null, user_id: peter.userId });
    const signed = await signAsPerson(peter.access);
    expect(signed.status, JSON.stringify(signed.body)).to.equal(202);
  });
});
