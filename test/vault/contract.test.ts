/**
 * What every KeyVault driver must do, whatever is behind it: one suite, run against the local vault, Azure Key Vault
 * (the real SDK against the stand-in) and each of them behind the metrics decorator, as the storage drivers share
 * theirs (test/storage/file-store.test.ts). A new driver (another cloud's KMS, an HSM) adds one entry to DRIVERS.
 * Driver-specific behaviour (file permissions, the bearer challenge, retries, timeouts) stays in each driver's tests.
 */
import { verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AzureKeyVault, instrumentVault, LocalKeyVault, VaultKeyNotFoundError, type KeyVault } from '../../shared/vault/index.js';
import { AzureKeyVaultStandin } from '../support/azure-keyvault-standin.js';
import { rejection } from '../support/rejection.js';

interface Backing {
  /** A vault on the backing store (the same keys for every call). */
  vault(): KeyVault;
  close(): Promise<void>;
}

const P384_SPKI_PREFIX = '3076301006072a8648ce3d020106052b81040022036200';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (text: string) => new TextEncoder().encode(text);
const verifiesEs384 = (spki: Uint8Array, data: Uint8Array, signature: Uint8Array) =>
  verify('sha384', data, { key: Buffer.from(spki), format: 'der', type: 'spki', dsaEncoding: 'ieee-p1363' }, signature);


const local = async (): Promise<Backing> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vault-contract-'));
  return { vault: () => new LocalKeyVault(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
};

const azure = async (): Promise<Backing> => {
  const standin = await AzureKeyVaultStandin.create();
  return { vault: () => new AzureKeyVault(standin.vaultUrl, standin.credential(), standin.clientOptions()), close: () => standin.close() };
};

const instrumented = (inner: () => Promise<Backing>) => async (): Promise<Backing> => {
  const backing = await inner();
  return { vault: () => instrumentVault(backing.vault()), close: () => backing.close() };
};

const DRIVERS: [name: string, kind: string, setup: () => Promise<Backing>][] = [
  ['LocalKeyVault', 'local', local],
  ['AzureKeyVault (SDK against the stand-in)', 'azure', azure],
  ['LocalKeyVault, instrumented', 'local', instrumented(local)],
  ['AzureKeyVault, instrumented', 'azure', instrumented(azure)],
];

for (const [name, kind, setup] of DRIVERS) {
  describe(`KeyVault contract: ${name}`, function () {
    this.timeout(30_000);
    let backing: Backing;
    let counter = 0;
    const fresh = () => `contract-${++counter}-${Date.now().toString(36)}`;
    before(async () => {
      backing = await setup();
    });
    after(() => backing.close());

    it(`names its kind ("${kind}")`, () => {
      expect(backing.vault().kind).to.equal(kind);
    });

    it('ensureKey creates a P-384 key under the name and hands back its public key (SPKI DER)', async () => {
      const keyName = fresh();
      const key = await backing.vault().ensureKey(keyName);
      expect(key.name).to.equal(keyName);
      expect(hex(key.publicKeySpki)).to.match(new RegExp(`^${P384_SPKI_PREFIX}`));
      expect(key.publicKeySpki.length).to.equal(120);
    });

    it('the same name is the same key: again, concurrently, from another instance, through getKey', async () => {
      const keyName = fresh();
      const first = await backing.vault().ensureKey(keyName);
      const v = backing.vault();
      const raced = await Promise.all([v.ensureKey(keyName), v.ensureKey(keyName), backing.vault().ensureKey(keyName)]);
      const read = await backing.vault().getKey(keyName);
      for (const k of [...raced, read]) expect(hex(k.publicKeySpki)).to.equal(hex(first.publicKeySpki));
      // A fresh name raced within one instance ends as one key. (Across processes only the local driver can promise
      // that: Azure Key Vault has no create-if-absent, each create adds a version. Callers that create keys in several
      // processes serialise on the PKI lock, shared/pki/pki-lock.ts.)
      const other = fresh();
      const w = backing.vault();
      const racedFresh = await Promise.all([w.ensureKey(other), w.ensureKey(other), w.ensureKey(other)]);
      const settled = await backing.vault().getKey(other);
      expect(new Set([...racedFresh, settled].map((k) => hex(k.publicKeySpki))).size).to.equal(1);
    });

    it('different names are different keys', async () => {
      const [a, b] = await Promise.all([backing.vault().ensureKey(fresh()), backing.vault().ensureKey(fresh())]);
      expect(hex(a!.publicKeySpki)).to.not.equal(hex(b!.publicKeySpki));
    });

    it('getKey of an absent key is VaultKeyNotFoundError naming it, and creates nothing', async () => {
      const keyName = fresh();
      const err = await rejection(backing.vault().getKey(keyName));
      expect(err).to.be.instanceOf(VaultKeyNotFoundError);
      expect((err as VaultKeyNotFoundError).keyName).to.equal(keyName);
      expect(await rejection(backing.vault().getKey(keyName))).to.be.instanceOf(VaultKeyNotFoundError);
    });

    it('signEs384 gives a 96-byte r||s over SHA-384 that node:crypto verifies with the public key, and only for those bytes', async () => {
      const keyName = fresh();
      const key = await backing.vault().ensureKey(keyName);
      const data = bytes('COSE Sig_structure bytes');
      const signature = await key.signEs384(data);
      expect(signature).to.be.instanceOf(Uint8Array);
      expect(signature.length).to.equal(96);
      expect(verifiesEs384(key.publicKeySpki, data, signature)).to.equal(true);
      expect(verifiesEs384(key.publicKeySpki, bytes('COSE Sig_structure bytez'), signature)).to.equal(false);
      // Randomised ECDSA: another signature differs and verifies; a key read by another instance signs alike.
      const again = await (await backing.vault().getKey(keyName)).signEs384(data);
      expect(hex(again)).to.not.equal(hex(signature));
      expect(verifiesEs384(key.publicKeySpki, data, again)).to.equal(true);
      // Empty and large inputs.
      expect(verifiesEs384(key.publicKeySpki, new Uint8Array(0), await key.signEs384(new Uint8Array(0)))).to.equal(true);
      const large = new Uint8Array(1024 * 1024).fill(7);
      expect(verifiesEs384(key.publicKeySpki, large, await key.signEs384(large))).to.equal(true);
    });

    it('refuses names no driver can hold, before any I/O, for ensureKey and getKey alike', async () => {
      for (const bad of ['', 'a/b', '../escape', 'with space', 'x'.repeat(128)]) {
        for (const call of [() => backing.vault().ensureKey(bad), () => backing.vault().getKey(bad)]) {
          const err = await rejection(call());
          expect(err, JSON.stringify(bad)).to.be.instanceOf(Error);
          expect(err, JSON.stringify(bad)).to.not.be.instanceOf(VaultKeyNotFoundError);
        }
      }
      // The longest name both drivers take.
      await backing.vault().ensureKey(`k${'x'.repeat(126)}`);
    });
  });
}
