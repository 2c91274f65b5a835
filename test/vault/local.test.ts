import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { LocalKeyVault } from '../../shared/vault/local.js';

/** What only the local driver does; what every driver does is in contract.test.ts. */
describe('LocalKeyVault', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'local-vault-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores keys as owner-only files (0600) in an owner-only directory (0700)', async () => {
    const vault = new LocalKeyVault(path.join(dataDir, 'fresh'));
    await vault.ensureKey('leaf-signing');
    const dir = path.join(dataDir, 'fresh', 'vault');
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
    expect(statSync(path.join(dir, 'leaf-signing.pem')).mode & 0o777).to.equal(0o600);
  });

  it('tightens a vault directory that already exists with looser permissions', async () => {
    const vault = new LocalKeyVault(dataDir);
    await vault.ensureKey('first');
    const dir = path.join(dataDir, 'vault');
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o755);
    await vault.ensureKey('second');
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
  });

  it('yields one key for concurrent ensureKey calls on a fresh name, in one instance and across instances', async () => {
    const vault = new LocalKeyVault(dataDir);
    const same = await Promise.all([vault.ensureKey('race-a'), vault.ensureKey('race-a'), vault.ensureKey('race-a')]);
    const spkis = new Set(same.map((k) => Buffer.from(k.publicKeySpki).toString('hex')));
    expect(spkis.size).to.equal(1);

    // Several instances on one data directory behave like several processes.
    const instances = Array.from({ length: 4 }, () => new LocalKeyVault(dataDir));
    const raced = await Promise.all(instances.map((v) => v.ensureKey('race-b')));
    expect(new Set(raced.map((k) => Buffer.from(k.publicKeySpki).toString('hex'))).size).to.equal(1);
    const reread = await new LocalKeyVault(dataDir).getKey('race-b');
    expect(Buffer.from(reread.publicKeySpki).equals(Buffer.from(raced[0]!.publicKeySpki))).to.equal(true);

    // No temporary files are left behind.
    expect(readdirSync(path.join(dataDir, 'vault')).sort()).to.deep.equal(['race-a.pem', 'race-b.pem']);
  });

  it('rejects invalid key names without touching the file system', async () => {
    const vault = new LocalKeyVault(dataDir);
    for (const name of ['', 'a/b', '../escape', 'with space', 'under_score', 'dot.pem', 'x'.repeat(128)]) {
      let caught: unknown;
      try {
        await vault.ensureKey(name);
      } catch (err) {
        caught = err;
      }
      expect(caught, name).to.be.instanceOf(Error);
      expect((caught as Error).message, name).to.match(/invalid key name/);
      let caughtGet: unknown;
      try {
        await vault.getKey(name);
      } catch (err) {
        caughtGet = err;
      }
      expect((caughtGet as Error).message, name).to.match(/invalid key name/);
    }
    expect(readdirSync(dataDir)).to.deep.equal([]);
    // The longest valid name works.
    await vault.ensureKey('x'.repeat(127));
  });
});
