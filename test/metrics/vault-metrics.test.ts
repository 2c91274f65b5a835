/**
 * mss_vault_call_seconds / mss_vault_errors_total through instrumentVault, as createKeyVault applies it: the local
 * vault, a vault whose signatures fail, and Azure Key Vault (the stand-in), whose keys keep their keyId / version.
 */
import { verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AzureKeyVault, createKeyVault, instrumentVault, LocalKeyVault, VaultKeyNotFoundError, VaultUnavailableError, type AzureVaultKey, type KeyVault } from '../../shared/vault/index.js';
import { AzureKeyVaultStandin } from '../support/azure-keyvault-standin.js';
import { growth } from './support.js';

const CALLS = 'mss_vault_call_seconds_count';
const ERRORS = 'mss_vault_errors_total';
const call = (vault: string, operation: string, result: string) => [CALLS, { vault, operation, result }] as const;
const errors = (vault: string, operation: string) => [ERRORS, { vault, operation }] as const;

describe('metrics: key vault calls (instrumentVault)', function () {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'vault-metrics-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('local: ensure_key, get_key and sign are timed with result ok; the vault is still a LocalKeyVault', async function () {
    const vault = createKeyVault({ cloudVaultUrl: undefined, dataDir });
    expect(vault).to.be.instanceOf(LocalKeyVault);
    expect(vault.kind).to.equal('local');
    expect(instrumentVault(vault)).to.equal(vault); // never measured twice

    const data = new TextEncoder().encode('measured');
    const grew = await growth([call('local', 'ensure_key', 'ok'), call('local', 'get_key', 'ok'), call('local', 'sign', 'ok'), errors('local', 'sign')], async () => {
      const created = await vault.ensureKey('metrics-key'); // reads through getKey inside the driver: not a get_key call
      const key = await vault.getKey('metrics-key');
      expect(key).to.equal(created); // one wrapper per cached key
      const signature = await key.signEs384(data);
      await key.signEs384(data);
      expect(verify('sha384', data, { key: Buffer.from(key.publicKeySpki), format: 'der', type: 'spki', dsaEncoding: 'ieee-p1363' }, signature)).to.equal(true);
    });
    expect(grew).to.deep.equal([1, 1, 2, 0]);
  });

  it('local: an absent key is result not_found (no error); a failing call is result error and counts in mss_vault_errors_total', async function () {
    const vault = createKeyVault({ cloudVaultUrl: undefined, dataDir });
    const grew = await growth(
      [call('local', 'get_key', 'not_found'), call('local', 'get_key', 'error'), errors('local', 'get_key'), errors('local', 'ensure_key')],
      async () => {
        await vault.getKey('absent').then(
          () => expect.fail('found'),
          (err: unknown) => expect(err).to.be.instanceOf(VaultKeyNotFoundError),
        );
        await vault.getKey('not a valid name!').then(
          () => expect.fail('accepted'),
          (err: unknown) => expect((err as Error).message).to.match(/invalid key name/),
        );
        await vault.ensureKey('also invalid!').catch(() => undefined);
      },
    );
    expect(grew).to.deep.equal([1, 1, 1, 1]);
  });

  it('a signature that fails is result error and counts in mss_vault_errors_total{operation="sign"}', async function () {
    const local = new LocalKeyVault(dataDir);
    const flaky: KeyVault = {
      kind: 'flaky',
      ensureKey: (name) => local.ensureKey(name),
      getKey: async (name) => {
        const key = await local.getKey(name);
        return { ...key, signEs384: async () => Promise.reject(new VaultUnavailableError('vault down')) };
      },
    };
    const vault = instrumentVault(flaky);
    await vault.ensureKey('flaky-key');
    const key = await vault.getKey('flaky-key');
    const grew = await growth([call('flaky', 'sign', 'error'), errors('flaky', 'sign'), call('flaky', 'sign', 'ok')], async () => {
      await key.signEs384(new Uint8Array([1])).then(
        () => expect.fail('signed'),
        (err: unknown) => expect(err).to.be.instanceOf(VaultUnavailableError),
      );
    });
    expect(grew).to.deep.equal([1, 1, 0]);
  });

  it('azure (stand-in): still an AzureKeyVault; its keys keep keyId and version; calls labelled vault="azure"', async function () {
    const standin = await AzureKeyVaultStandin.create();
    try {
      const vault = createKeyVault({ cloudVaultUrl: standin.vaultUrl, dataDir }, { credential: standin.credential(), azure: standin.clientOptions() });
      expect(vault).to.be.instanceOf(AzureKeyVault);
      expect((vault as AzureKeyVault).vaultUrl).to.equal(standin.vaultUrl);
      let key!: AzureVaultKey;
      const grew = await growth([call('azure', 'ensure_key', 'ok'), call('azure', 'sign', 'ok'), call('azure', 'get_key', 'not_found')], async () => {
        key = (await vault.ensureKey('metrics-azure')) as AzureVaultKey;
        await key.signEs384(new TextEncoder().encode('azure'));
        await vault.getKey('absent-azure').catch(() => undefined);
      });
      expect(grew).to.deep.equal([1, 1, 1]);
      expect(key.keyId).to.equal(`${standin.vaultUrl}/keys/metrics-azure/${key.version}`);
      expect({ ...key }).to.include.keys('name', 'keyId', 'version', 'publicKeySpki', 'signEs384');
    } finally {
      await standin.close();
    }
  });
});
