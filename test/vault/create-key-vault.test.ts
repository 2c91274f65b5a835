import { verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../shared/config.js';
import { AzureKeyVault, createKeyVault, LocalKeyVault } from '../../shared/vault/index.js';
import { AzureKeyVaultStandin } from '../support/azure-keyvault-standin.js';

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
