/**
 * What remote-manifest fetches may send out (api/media/fetch-budgets.ts): every request, each redirect included,
 * counts against the client address's REMOTE_MANIFESTS_PER_ADDRESS and the host's REMOTE_MANIFESTS_PER_HOST per
 * minute. Against a local HTTPS server that redirects, with a clock the test moves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { RemoteManifests } from '../../api/media/remote-manifest.js';
import { ServiceError } from '../../shared/errors.js';
import { loadConfig } from '../../shared/config.js';
import { localHttpsServer, type LocalHttpsServer } from '../support/https-server.js';
import { rejection } from '../support/rejection.js';

describe('remote manifests: requests per client address and per host', function () {
  this.timeout(30_000);
  let dir: string;
  let local: LocalHttpsServer;
  let clock: number;
  const manifest = new Uint8Array([1, 2, 3]);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fetch-budgets-'));
    local = await localHttpsServer(dir);
    local.body.bytes = manifest;
    // /r3/... -> /r2/... -> /r1/... -> /m/...: three redirects, four requests.
    for (const n of [3, 2, 1]) for (const name of ['a', 'b', 'c']) local.redirects.set(`/r${n}/${name}`, n === 1 ? `/m/${name}` : `/r${n - 1}/${name}`);
  });
  after(() => {
    local.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    clock = Date.now();
  });

  /** Remote manifests as the API fetches them, nothing kept (so every fetch goes out), with the given allowances. */
  const manifests = (env: Record<string, string>) => {
    const { remoteManifests } = loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, JWT_SECRET: 'test-only', REMOTE_MANIFESTS_ALLOW_PRIVATE: 'true', REMOTE_MANIFESTS_CA_FILE: local.caFile, REMOTE_MANIFESTS_CACHE_SECONDS: '0', ...env });
    return new RemoteManifests(remoteManifests, () => clock);
  };
  const url = (p: string) => `https://127.0.0.1:${local.port}${p}`;

  it('each redirect counts: a client out of its allowance mid-chain is 429 remote_fetch_rate_limited, sent nothing more; another client goes on', async () => {
    const remote = manifests({ REMOTE_MANIFESTS_PER_ADDRESS: '5', REMOTE_MANIFESTS_PER_HOST: '1000' });
    const one = remote.forClient('198.51.100.1');
    const before = local.requests.length;
    expect(await one.fetch(url('/r3/a'))).to.deep.equal({ bytes: manifest });
    expect(local.requests.length - before, 'three redirects: four requests').to.equal(4);
    const refused = await rejection(one.fetch(url('/r3/a')));
    expect(refused).to.be.instanceOf(ServiceError).and.include({ kind: 'rate_limited', code: 'remote_fetch_rate_limited', retryAfterSeconds: 60 });
    expect(refused.message).to.match(/REMOTE_MANIFESTS_PER_ADDRESS/);
    expect(local.requests.length - before, 'the fifth request went, the sixth did not').to.equal(5);
    expect(await remote.forClient('198.51.100.2').fetch(url('/r3/a'))).to.deep.equal({ bytes: manifest });
    // A minute later the allowance is back.
    clock += 60_001;
    expect(await one.fetch(url('/r3/a'))).to.deep.equal({ bytes: manifest });
  });

  it('per host: past REMOTE_MANIFESTS_PER_HOST in a minute, 503 remote_host_busy for any client, with Retry-After', async () => {
    const remote = manifests({ REMOTE_MANIFESTS_PER_ADDRESS: '1000', REMOTE_MANIFESTS_PER_HOST: '6' });
    expect(await remote.forClient('198.51.100.1').fetch(url('/r3/b'))).to.deep.equal({ bytes: manifest });
    clock += 30_000;
    expect(await remote.forClient('198.51.100.2').fetch(url('/m/x'))).to.deep.equal({ bytes: manifest });
    expect(await remote.forClient('198.51.100.3').fetch(url('/m/y'))).to.deep.equal({ bytes: manifest });
    const before = local.requests.length;
    const busy = await rejection(remote.forClient('198.51.100.4').fetch(url('/m/z')));
    expect(busy).to.be.instanceOf(ServiceError).and.include({ kind: 'unavailable', code: 'remote_host_busy', retryAfterSeconds: 30 });
    expect(local.requests.length).to.equal(before);
    clock += 30_001;
    expect(await remote.forClient('198.51.100.4').fetch(url('/m/z'))).to.deep.equal({ bytes: manifest });
  });

  it('a client sharing a fetch that another client’s allowance stopped fetches on its own account', async () => {
    const remote = manifests({ REMOTE_MANIFESTS_PER_ADDRESS: '4', REMOTE_MANIFESTS_PER_HOST: '1000' });
    const first = remote.forClient('198.51.100.1');
    await first.fetch(url('/m/warm'));
    await first.fetch(url('/m/warm'));
    // The first client has two requests left; the chain needs four. Its first answer is held while a second client joins.
    let open = () => {};
    local.gate.open = new Promise<void>((resolve) => (open = resolve));
    const before = local.requests.length;
    try {
      const stopped = rejection(first.fetch(url('/r3/c')));
      while (local.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      const joined = remote.forClient('198.51.100.2').fetch(url('/r3/c'));
      open();
      expect(await stopped).to.include({ code: 'remote_fetch_rate_limited' });
      expect(await joined).to.deep.equal({ bytes: manifest });
    } finally {
      open();
      local.gate.open = Promise.resolve();
    }
    expect(local.requests.length - before, 'two for the first client, four for the second').to.equal(6);
  });
});
