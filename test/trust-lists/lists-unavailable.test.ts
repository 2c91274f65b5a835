/**
 * Trust lists that cannot be loaded (a file that differs from its pin): verification answers 503
 * trust_lists_unavailable, never a 500 or a verdict judged without them, and /health/ready says why. The loader
 * refuses such a version on every call, and takes a mended one.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { SHIPPED_TRUST_LISTS_DIR, TrustListError } from '../../shared/trust/lists.js';
import { TrustStoreLoader } from '../../shared/trust/store.js';
import { bearer, registerAccount, startTestApi, type TestApi } from '../support/api.js';

const photo = () => readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));

describe('trust lists that differ from their pins', function () {
  this.timeout(60_000);
  const scratch = mkdtempSync(path.join(tmpdir(), 'lists-unavailable-'));
  const copyOfLists = () => {
    const dir = mkdtempSync(path.join(scratch, 'lists-'));
    cpSync(SHIPPED_TRUST_LISTS_DIR, dir, { recursive: true });
    return dir;
  };
  let api: TestApi | undefined;
  after(async () => {
    await api?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('TRUST_LISTS_DIR must hold pinned lists', () => {
    const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40) };
    expect(() => loadConfig({ ...base, TRUST_LISTS_DIR: scratch })).to.throw(ConfigError, /TRUST_LISTS_DIR.*no pins\.json/);
    const dir = copyOfLists();
    expect(loadConfig({ ...base, TRUST_LISTS_DIR: dir }).trustListsDir).to.equal(dir);
  });

  it('the loader refuses a tampered version on every call, and takes the mended one', () => {
    const dir = copyOfLists();
    const file = path.join(dir, 'official', 'C2PA-TRUST-LIST.pem');
    const good = readFileSync(file);
    appendFileSync(file, '\n');
    const loader = new TrustStoreLoader({ dir, trustLists: ['official', 'interim'], trustAnchorsFile: undefined }, 0);
    expect(() => loader.current()).to.throw(TrustListError, /C2PA-TRUST-LIST\.pem has SHA-256 [0-9a-f]{64}, pinned 75cacc98/);
    expect(() => loader.current()).to.throw(TrustListError);
    writeFileSync(file, good);
    expect(loader.current().claimAnchors.filter((a) => a.source === 'c2pa_trust_list')).to.have.length(30);
  });

  it('verify answers 503 trust_lists_unavailable (both endpoints) and /health/ready names the cause without failing readiness', async () => {
    const dir = copyOfLists();
    appendFileSync(path.join(dir, 'interim', 'allowed.pem'), '\n');
    api = await startTestApi({ TRUST_LISTS_DIR: dir }, { issuer: false });
    const acc = await registerAccount(api.app, 'Lists Org');
    const pub = await request(api.app).post('/v1/verify').attach('file', photo(), 'photo.jpg').expect(503);
    expect(pub.body.error.code).to.equal('trust_lists_unavailable');
    expect(pub.body.error.message).to.not.contain(dir); // the operator's paths stay in logs and /health/ready
    const signedIn = await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', photo(), 'photo.jpg').expect(503);
    expect(signedIn.body.error.code).to.equal('trust_lists_unavailable');

    const ready = await request(api.app).get('/health/ready');
    expect(ready.body.trust_lists.code).to.equal('trust_lists_unavailable');
    expect(ready.body.trust_lists.error).to.match(/interim\/allowed\.pem has SHA-256 [0-9a-f]{64}, pinned/);
    expect(ready.body.failing).to.not.include('trust_lists');
  });
});
