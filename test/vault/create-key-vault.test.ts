import { verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config.js';
import { AzureKeyVault, createKeyVault, LocalKeyVault, VaultUnavailableError } from '../../shared/vault/index.js';
import { AzureKeyVaultStandin } from '../support/azure-keyvault-standin.js';
import { rejection } from '../support/rejection.js';

describe('createKeyVault', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'create-vault-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses the local vault in DATA_DIR when CLOUD_VAULT_URL is unset', () => {
    const vault = createKeyVault(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir }));
    expect(vault).to.be.instanceOf(LocalKeyVault);
    expect(vault.kind).to.equal('local');
  });

  it('uses Azure Key Vault with DefaultAzureCredential when CLOUD_VAULT_URL is set, without any I/O up front', () => {
    const vault = createKeyVault(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, CLOUD_VAULT_URL: 'https://example.vault.azure.net/' }));
    expect(vault).to.be.instanceOf(AzureKeyVault);
    expect(vault.kind).to.equal('azure');
    expect((vault as AzureKeyVault).vaultUrl).to.equal('https://example.vault.azure.net');
  });

  it('imports the Azure SDK at load(), without I/O: a credential setting the SDK refuses fails there, and so does the first call', async () => {
    const vault = createKeyVault(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, CLOUD_VAULT_URL: 'https://example.vault.azure.net/' }));
    const saved = process.env.AZURE_TOKEN_CREDENTIALS;
    process.env.AZURE_TOKEN_CREDENTIALS = 'no-such-credential';
    try {
      expect((await rejection(vault.load!())).message).to.match(/AZURE_TOKEN_CREDENTIALS/);
      const failure = await rejection(vault.getKey('leaf'));
      expect(failure).to.be.instanceOf(VaultUnavailableError);
      expect(failure.message).to.match(/AZURE_TOKEN_CREDENTIALS/);
    } finally {
      if (saved === undefined) delete process.env.AZURE_TOKEN_CREDENTIALS;
      else process.env.AZURE_TOKEN_CREDENTIALS = saved;
    }
  });

  it('reaches the configured vault end to end (stand-in, stub credential, test TLS trust)', async () => {
    const standin = await AzureKeyVaultStandin.create();
    try {
      const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, CLOUD_VAULT_URL: standin.vaultUrl });
      const vault = createKeyVault(config, { credential: standin.credential(), azure: standin.clientOptions() });
      const key = await vault.ensureKey(config.leafKeyName);
      const data = new TextEncoder().encode('signed through createKeyVault');
      const signature = await key.signEs384(data);
      const ok = verify('sha384', data, { key: Buffer.from(key.publicKeySpki), format: 'der', type: 'spki', dsaEncoding: 'ieee-p1363' }, signature);
      expect(ok).to.equal(true);
      expect(standin.keyVersions(config.leafKeyName)).to.have.length(1);
    } finally {
      await standin.close();
    }
  });
});
