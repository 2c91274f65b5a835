/**
 * Organisations sign as themselves: each has its own leaf certificate (subject O and CN: its name) under the
 * service's sub-CA, issued at registration. Files go through the API, BullMQ and a worker process; c2pa-rs reads
 * them Trusted with only the service root; OpenSSL's OCSP client asks the ocsp role about each certificate.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { ensureOrgCertificate } from '../../shared/pki/org-signing.js';
import { loadOrgSigningIdentity } from '../../shared/pki/org-signing-identity.js';
import { derToPem } from '../../shared/pki/pem.js';
import { PostgresPkiEvents } from '../../shared/pki/pki-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import type { KeyVault } from '../../shared/vault/types.js';
import { VaultUnavailableError } from '../../shared/vault/types.js';
import { addOrgUser, bearer, downloadFile, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';
import { openssl, writePems } from './support.js';

const photo = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));
const logger = createLogger('silent', 'test');

describe('trust: every organisation signs with its own certificate', function () {
  this.timeout(120_000);
  let api: TestApi;
  let vault: KeyVault;
  let pki: InitPkiResult;
  let tsa: TsaService;
  let ocsp: OcspRole;
  let events: PostgresPkiEvents;
  let worker: RoleProcess;
  let planet: Account;
  let bugle: Account;
  const dir = mkdtempSync(path.join(tmpdir(), 'org-signing-'));

  before(async () => {
    api = await startTestApi({ OCSP_PORT: '0', CRL_PORT: '0', TSA_PORT: '0' });
    vault = createKeyVault(api.config);
    pki = await initPki({ knex: api.db.knex, vault, config: api.config });
    events = new PostgresPkiEvents(api.db.knex, api.db.url, logger);
    ocsp = await startOcspRole(api.config, api.db.knex, vault, logger, { events, host: '127.0.0.1' });
    tsa = await startTsaService({ tsaPort: 0, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, logger, { host: '127.0.0.1' });
    worker = await startTestWorker(api, `http://127.0.0.1:${tsa.port}`, { WORKER_CONCURRENCY: '2', SIGN_BACKOFF_MS: '200' });
    planet = await registerAccount(api.app, 'Daily Planet');
    bugle = await registerAccount(api.app, 'The Daily Bugle');
  });
  after(async () => {
    await worker?.stop();
    await tsa?.close();
    await ocsp?.();
    await events?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signJpeg(acc: Account) {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', photo, 'photo.jpg').expect(201);
    const res = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, manifest: { title: 'Harbour', creator: 'Desk' } });
    if (res.status !== 202) return res;
    for (let i = 0; i < 6; i += 1) {
      const job = await request(api.app).get(`/v1/media/jobs/${res.body.job_id}?wait=20`).set(bearer(acc.access)).expect(200);
      if (!['queued', 'processing'].includes(job.body.status)) return job;
    }
    throw new Error('job did not finish');
  }

  const download = (acc: Account, url: string) => downloadFile(api.app, acc, url);

  async function ocspStatus(certPem: string): Promise<string> {
    const files = writePems(dir, { root: pki.root, subCa: pki.subCa });
    const certFile = path.join(dir, `cert-${Math.random().toString(36).slice(2)}.pem`);
    (await import('node:fs')).writeFileSync(certFile, certPem);
    const r = await openssl(['ocsp', '-no_nonce', '-issuer', files.subCa!, '-cert', certFile, '-url', `http://127.0.0.1:${ocsp.ocspPort}/`, '-CAfile', files.root!], dir);
    expect(r.stdout + r.stderr).to.include('Response verify OK');
    return /: (good|revoked|unknown)/.exec(r.stdout)![1]!;
  }

  it('registration issues each organisation its own certificate; admins see it, other roles do not', async () => {
    for (const [acc, name] of [[planet, 'Daily Planet'], [bugle, 'The Daily Bugle']] as const) {
      const res = await request(api.app).get('/org/signing-certificate').set(bearer(acc.access)).expect(200);
      expect(res.body.status).to.equal('valid');
      expect(res.body.current.subject).to.equal(`CN=${name},O=${name}`);
      expect(res.body.current.issuer).to.equal(pki.subCa.subject);
      expect(res.body.certificates).to.have.length(1);
      // The same certificate for every member and API key of the organisation, with its chain to the root.
      const pub = await request(api.app).get('/v1/certificates/signing').set(bearer(acc.access)).expect(200);
      expect(pub.body.serial).to.equal(res.body.current.serial);
      const files = writePems(dir, { root: pki.root });
      (await import('node:fs')).writeFileSync(path.join(dir, 'chain.pem'), pub.body.chain_pem);
      (await import('node:fs')).writeFileSync(path.join(dir, 'leaf.pem'), pub.body.certificate_pem);
      const verified = await openssl(['verify', '-purpose', 'smimesign', '-CAfile', files.root!, '-untrusted', 'chain.pem', 'leaf.pem'], dir);
      expect(verified.stdout).to.include('leaf.pem: OK');
    }
    const viewer = await addOrgUser(api.app, planet, 'viewer');
    await request(api.app).get('/org/signing-certificate').set(bearer(viewer.access)).expect(403);
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(viewer.access)).expect(403);
    await request(api.app).get('/v1/certificates/signing').expect(401);
  });

  it('two organisations sign a JPEG each: both Trusted with only the service root, signed by different certificates naming them', async () => {
    const rootPem = derToPem(pki.root.der);
    const signers: string[] = [];
    for (const [acc, name] of [[planet, 'Daily Planet'], [bugle, 'The Daily Bugle']] as const) {
      const job = await signJpeg(acc);
      expect(job.body.status, JSON.stringify(job.body)).to.equal('signed');
      expect(job.body.signed_file.certificate_subject).to.equal(`CN=${name},O=${name}`);
      const signed = await download(acc, job.body.signed_file.download_url);
      const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status)).to.equal('Trusted');
      expect(report.signer?.subject).to.contain(name);
      expect(report.signer?.serial).to.equal(job.body.signed_file.certificate_serial);
      signers.push(String(report.signer?.serial));
      const verified = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', signed, 'p.jpg').expect(200);
      expect(verified.body.signer.subject).to.contain(name);
      expect(verified.body.revocation.status).to.equal('good');
    }
    expect(signers[0]).to.not.equal(signers[1]);
  });

  it("revoking one organisation's certificate: OCSP says revoked for it and good for the other, which still signs; an admin rotates to sign again", async () => {
    const planetCert = (await request(api.app).get('/v1/certificates/signing').set(bearer(planet.access)).expect(200)).body;
    const bugleCert = (await request(api.app).get('/v1/certificates/signing').set(bearer(bugle.access)).expect(200)).body;
    await revokeCertificate({ knex: api.db.knex, vault, config: api.config, events }, planetCert.serial, 'keyCompromise');
    await ocsp.reloads();
    expect(await ocspStatus(planetCert.certificate_pem)).to.equal('revoked');
    expect(await ocspStatus(bugleCert.certificate_pem)).to.equal('good');

    expect((await signJpeg(bugle)).body.status).to.equal('signed');
    const refused = await signJpeg(planet);
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('no_signing_certificate');
    expect((await request(api.app).get('/org/signing-certificate').set(bearer(planet.access)).expect(200)).body).to.include({ status: 'revoked', current: null });

    const rotated = await request(api.app).post('/org/signing-certificate/rotate').set(bearer(planet.access)).expect(201);
    expect(rotated.body.serial).to.not.equal(planetCert.serial);
    expect(rotated.body.subject).to.equal('CN=Daily Planet,O=Daily Planet');
    const again = await signJpeg(planet);
    expect(again.body.status).to.equal('signed');
    expect(again.body.signed_file.certificate_serial).to.equal(rotated.body.serial);
    // A new key for the new certificate: generation 2 of the organisation's keys.
    const row = await api.db.knex('certificates').where({ serial: rotated.body.serial }).first('key_name');
    expect(row.key_name).to.equal(`org-${planet.orgId}-2`);
  });

  it('a rename reissues the signing certificate with the new name; files signed before keep theirs', async () => {
    const before = (await request(api.app).get('/v1/certificates/signing').set(bearer(bugle.access)).expect(200)).body;
    const viewer = await addOrgUser(api.app, bugle, 'viewer');
    await request(api.app).patch('/org').set(bearer(viewer.access)).send({ name: 'Bugle' }).expect(403);
    const bad = await request(api.app).patch('/org').set(bearer(bugle.access)).send({ name: '' }).expect(400);
    expect(bad.body.error.message).to.match(/^name/);
    const renamed = await request(api.app).patch('/org').set(bearer(bugle.access)).send({ name: 'Bugle Media' }).expect(200);
    expect(renamed.body.name).to.equal('Bugle Media');
    expect((await request(api.app).get('/org').set(bearer(viewer.access)).expect(200)).body.name).to.equal('Bugle Media');
    const after = (await request(api.app).get('/v1/certificates/signing').set(bearer(bugle.access)).expect(200)).body;
    expect(after.serial).to.not.equal(before.serial);
    expect(after.subject).to.equal('CN=Bugle Media,O=Bugle Media');
    const job = await signJpeg(bugle);
    expect(job.body.signed_file.certificate_subject).to.equal('CN=Bugle Media,O=Bugle Media');
    // The old certificate is superseded, not revoked: what it signed stays valid.
    expect(await ocspStatus(before.certificate_pem)).to.equal('good');
  });

  it('an organisation without a certificate gets exactly one from concurrent first jobs; a failed issuance leaves no row and no extra key', async () => {
    const orgId = 'b7e1c0de-0000-4000-8000-000000000001';
    await api.db.knex('organisations').insert({ id: orgId, name: 'Older Org' });
    const vaultKeys = () => readdirSync(path.join(api.config.dataDir, 'vault')).filter((f) => f.includes(orgId));

    // The vault creates the key, then the sub-CA signature fails: nothing is recorded.
    const failing: KeyVault = {
      kind: 'failing',
      ensureKey: (name) => vault.ensureKey(name),
      getKey: async (name) => {
        const key = await vault.getKey(name);
        return { ...key, name: key.name, publicKeySpki: key.publicKeySpki, signEs384: () => Promise.reject(new VaultUnavailableError('vault down')) };
      },
    };
    try {
      // Issuance (the scheduler's side of certificate requests) with a vault that fails mid-way.
      await ensureOrgCertificate({ knex: api.db.knex, vault: failing, config: api.config }, orgId);
      expect.fail('expected the vault failure');
    } catch (err) {
      expect(err).to.be.instanceOf(VaultUnavailableError);
    }
    expect(await api.db.knex('certificates').where({ org_id: orgId })).to.have.length(0);
    expect(vaultKeys()).to.have.length(1);

    // Six first jobs at once: each asks the issuer (running beside the API, as the scheduler does) and waits.
    const deps = { knex: api.db.knex, vault };
    const identities = await Promise.all(Array.from({ length: 6 }, () => loadOrgSigningIdentity(deps, orgId)));
    expect(new Set(identities.map((i) => i.serial)).size).to.equal(1);
    expect(identities[0]!.subject).to.equal('CN=Older Org,O=Older Org');
    expect(await api.db.knex('certificates').where({ org_id: orgId })).to.have.length(1);
    // The retry reused the key the failed attempt created.
    expect(vaultKeys()).to.have.length(1);
  });
});
