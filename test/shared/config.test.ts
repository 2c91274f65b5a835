import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig, startupWarnings } from '../../shared/config.js';
import { RUN_MARK } from '../support/run-mark.js';
import { nodeScriptArgs } from '../support/node-script.js';

// Every test's DATA_DIR lives under one directory, removed when the file's tests are done.
const scratch = mkdtempSync(path.join(tmpdir(), 'cfg-'));
const dataDir = () => mkdtempSync(path.join(scratch, 'd-'));

describe('configuration', () => {
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('has working embedded defaults', () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c.port).to.equal(3000);
    expect(c.ocspUrl).to.equal('http://localhost:3001');
    expect(c.crlUrl).to.equal('http://localhost:3002');
    expect(c.databaseUrl).to.equal(undefined);
    expect(c.cloudVaultUrl).to.equal(undefined);
    expect(c.redisUrl).to.equal('redis://127.0.0.1:6379');
    // Operator endpoints on loopback only, files on the local disk, the queue reconciled every 30 s.
    expect(c).to.deep.include({ opsPort: 3004, opsHost: '127.0.0.1', reconcileIntervalMs: 30_000, blobStorage: undefined });
  });

  it('reads the operator listener, the reconciler interval and blob storage, and refuses bad values', () => {
    const c = loadConfig({ DATA_DIR: dataDir(), OPS_PORT: '9100', OPS_HOST: '10.0.0.5', RECONCILE_INTERVAL_MS: '5000', AZURE_STORAGE_ACCOUNT_URL: 'https://acct.blob.core.windows.net', BLOB_CONTAINER: 'signed-media' });
    expect(c).to.deep.include({ opsPort: 9100, opsHost: '10.0.0.5', reconcileIntervalMs: 5000 });
    expect(c.blobStorage).to.deep.equal({ connectionString: undefined, accountUrl: 'https://acct.blob.core.windows.net', container: 'signed-media' });
    expect(() => loadConfig({ DATA_DIR: dataDir(), OPS_HOST: 'a host; rm' })).to.throw(ConfigError, /OPS_HOST/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), RECONCILE_INTERVAL_MS: '10' })).to.throw(ConfigError, /RECONCILE_INTERVAL_MS/);
  });

  it('outside production keeps a random JWT secret in the data directory, owner-readable only', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.jwtSecret).to.have.length.greaterThan(40);
    expect(second.jwtSecret).to.equal(first.jwtSecret);
    expect(statSync(path.join(dir, 'jwt-secret')).mode & 0o777).to.equal(0o600);
  });

  for (const [label, secret] of [
    ['missing', undefined],
    ['short', 'abc123'],
    ['a placeholder', 'changeme'],
  ] as const) {
    it(`refuses to start in production with a ${label} JWT_SECRET`, () => {
      const env: Record<string, string | undefined> = { NODE_ENV: 'production', DATA_DIR: dataDir(), JWT_SECRET: secret };
      expect(() => loadConfig(env)).to.throw(ConfigError, /JWT_SECRET/);
    });
  }

  it('accepts a long production secret', () => {
    const c = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir(), JWT_SECRET: 'x'.repeat(20) + 'y'.repeat(20) });
    expect(c.nodeEnv).to.equal('production');
  });

  it('limits: password threads and checks, webhook endpoints, open certificate requests, remote-manifest requests per address and per host', () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c.passwordThreads).to.be.within(1, 4);
    expect(c).to.deep.include({ passwordChecksMax: 32, maxPendingCertificateRequests: 5 });
    expect(c.webhooks.maxEndpoints).to.equal(20);
    expect(c.remoteManifests).to.deep.include({ perAddress: 10, perHost: 60 });
    const set = loadConfig({ DATA_DIR: dataDir(), PASSWORD_THREADS: '3', PASSWORD_CHECKS_MAX: '8', MAX_WEBHOOK_ENDPOINTS: '2', MAX_PENDING_CERTIFICATE_REQUESTS: '1', REMOTE_MANIFESTS_PER_ADDRESS: '4', REMOTE_MANIFESTS_PER_HOST: '9' });
    expect(set).to.deep.include({ passwordThreads: 3, passwordChecksMax: 8, maxPendingCertificateRequests: 1 });
    expect(set.webhooks.maxEndpoints).to.equal(2);
    expect(set.remoteManifests).to.deep.include({ perAddress: 4, perHost: 9 });
    for (const name of ['PASSWORD_THREADS', 'PASSWORD_CHECKS_MAX', 'MAX_WEBHOOK_ENDPOINTS', 'MAX_PENDING_CERTIFICATE_REQUESTS', 'REMOTE_MANIFESTS_PER_ADDRESS', 'REMOTE_MANIFESTS_PER_HOST']) {
      expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: '0' }), name).to.throw(ConfigError, new RegExp(name));
    }
  });

  it('WEBHOOK_ALLOW_PRIVATE: refused in production unless WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true, and then warned about at start', () => {
    const production = { NODE_ENV: 'production', DATA_DIR: dataDir(), JWT_SECRET: 'x'.repeat(40) };
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true' })).to.throw(ConfigError, /WEBHOOK_ALLOW_PRIVATE .*WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true/);
    const meant = loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION: 'true' });
    expect(meant.webhooks.allowPrivate).to.equal(true);
    const [warning, ...more] = startupWarnings(meant);
    expect(more).to.deep.equal([]);
    expect(warning!.variable).to.equal('WEBHOOK_ALLOW_PRIVATE');
    expect(warning!.message).to.match(/private, loopback and link-local/).and.match(/plain http/);
    // Nothing to say without it, or outside production.
    expect(startupWarnings(loadConfig(production))).to.deep.equal([]);
    expect(startupWarnings(loadConfig({ DATA_DIR: dataDir(), WEBHOOK_ALLOW_PRIVATE: 'true' }))).to.deep.equal([]);
  });

  it('a role started with WEBHOOK_ALLOW_PRIVATE in production logs the warning first; without the second setting it does not start', () => {
    const start = (env: Record<string, string>) =>
      spawnSync(process.execPath, nodeScriptArgs('api/main.ts'), {
        cwd: path.resolve(import.meta.dirname, '../..'),
        // No DATABASE_URL: the role stops right after the configuration is read.
        env: { PATH: process.env.PATH ?? '', [RUN_MARK]: process.env[RUN_MARK] ?? '', NODE_ENV: 'production', DATA_DIR: dataDir(), JWT_SECRET: 'x'.repeat(40), WEBHOOK_ALLOW_PRIVATE: 'true', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const meant = start({ WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION: 'true' });
    const [first] = meant.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: number; variable?: string; msg: string });
    expect(first, meant.stdout).to.include({ level: 40, variable: 'WEBHOOK_ALLOW_PRIVATE' });
    expect(first!.msg).to.match(/plain http/);
    const refused = start({});
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.match(/^configuration: WEBHOOK_ALLOW_PRIVATE /);
    expect(refused.stdout).to.equal('');
  });

  it('C2PA_SPEC_VERSION: 2.4 by default, 2.2 when asked, any other version refused at start', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).c2paSpecVersion).to.equal('2.4');
    expect(loadConfig({ DATA_DIR: dataDir(), C2PA_SPEC_VERSION: '2.2' }).c2paSpecVersion).to.equal('2.2');
    for (const value of ['2.3', '2', 'v2.2', '2.2.0']) {
      expect(() => loadConfig({ DATA_DIR: dataDir(), C2PA_SPEC_VERSION: value })).to.throw(ConfigError, `configuration: C2PA_SPEC_VERSION must be one of 2.4, 2.2, got "${value}"`);
    }
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['CLOUD_VAULT_URL', 'http://insecure.vault.azure.net'],
    ['REDIS_URL', 'not a url'],
    ['NODE_ENV', 'staging'],
    ['OCSP_UNISSUED_STATUS', 'revoked'],
    ['MAX_UPLOAD_BYTES', '-1'],
  ]) {
    it(`names ${name} when it is ${JSON.stringify(value)}`, () => {
      expect(() => loadConfig({ DATA_DIR: dataDir(), [name!]: value })).to.throw(ConfigError, new RegExp(name!));
    });
  }
});
