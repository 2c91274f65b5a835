import { createHash, verify } from 'node:crypto';
import https from 'node:https';
import { expect } from 'chai';
import { CryptographyClient } from '@azure/keyvault-keys';
import { AzureKeyVault, type AzureKeyVaultOptions } from '../../shared/vault/azure.js';
import { VaultKeyNotFoundError, VaultUnavailableError } from '../../shared/vault/types.js';
import { AzureKeyVaultStandin, StubTokenCredential } from '../support/azure-keyvault-standin.js';
import { rejection } from '../support/rejection.js';

const VAULT_SCOPE = 'https://vault.azure.net/.default';

function verifiesEs384(spki: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  return verify('sha384', data, { key: Buffer.from(spki), format: 'der', type: 'spki', dsaEncoding: 'ieee-p1363' }, signature);
}


const bytes = (text: string) => new TextEncoder().encode(text);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('AzureKeyVault (real @azure/keyvault-keys SDK against the local stand-in)', function () {
  let standin: AzureKeyVaultStandin;
  let keyCounter = 0;
  const freshName = () => `key-${++keyCounter}-${Date.now().toString(36)}`;

  function vault(options: AzureKeyVaultOptions = {}, credential: StubTokenCredential = standin.credential()) {
    return new AzureKeyVault(standin.vaultUrl, credential, { ...standin.clientOptions(), ...options });
  }

  before(async () => {
    standin = await AzureKeyVaultStandin.create();
  });

  after(async () => {
    await standin.close();
  });

  beforeEach(async () => {
    await standin.start(); // a test may have left it down
    standin.unresponsive = false;
    standin.failNext(0);
    standin.resetCounts();
  });

  it('answers the first request with the bearer challenge; the credential is asked for the vault scope and tenant', async () => {
    const credential = standin.credential();
    const v = vault({}, credential);
    await v.ensureKey(freshName());

    const [first, second] = standin.requests;
    expect(first).to.include({ method: 'GET', operation: 'challenge', status: 401, authorized: false });
    // The SDK resends the same request with the token it got for the challenge.
    expect(second).to.include({ method: 'GET', path: first!.path, authorized: true });
    expect(credential.requests).to.have.length(1);
    expect(credential.requests[0]).to.deep.include({ scopes: [VAULT_SCOPE], tenantId: standin.tenantId, enableCae: true });
    // Every request carries the api-version the SDK was built for.
    expect(new Set(standin.requests.map((r) => r.apiVersion))).to.deep.equal(new Set(['2025-07-01']));

    // Later requests reuse the token: no new challenge, no new token request.
    await v.ensureKey(freshName());
    expect(standin.counts.challenge).to.equal(1);
    expect(credential.requests).to.have.length(1);
  });

  it('creates an EC P-384 key and reads back the same public key (SPKI DER), also from a fresh instance', async () => {
    const name = freshName();
    const created = await vault().ensureKey(name);
    expect(created.name).to.equal(name);
    expect(hex(created.publicKeySpki)).to.equal(hex(standin.publicKeySpki(name)!));
    expect(hex(created.publicKeySpki)).to.match(/^3076301006072a8648ce3d020106052b81040022036200/); // P-384 SPKI

    const read = await vault().getKey(name);
    expect(hex(read.publicKeySpki)).to.equal(hex(created.publicKeySpki));
    expect(standin.counts.create).to.equal(1);
  });

  it('pins the key version it read and exposes the key identifier', async () => {
    const name = freshName();
    const key = await vault().ensureAzureKey(name);
    expect(key.version).to.equal(standin.keyVersions(name)[0]);
    expect(key.keyId).to.equal(`${standin.vaultUrl}/keys/${name}/${key.version}`);
  });

  it('does not create a key that exists: ensureKey twice, concurrently, and from another instance', async () => {
    const name = freshName();
    const v = vault();
    const first = await v.ensureKey(name);
    const second = await v.ensureKey(name);
    const concurrent = await Promise.all([vault().ensureKey(freshName()), vault().ensureKey(name)]);
    const otherInstance = await vault().ensureKey(name);
    expect(standin.keyVersions(name)).to.have.length(1);
    for (const k of [second, concurrent[1], otherInstance]) expect(hex(k.publicKeySpki)).to.equal(hex(first.publicKeySpki));

    // Concurrent ensureKey calls on a fresh name in one instance share one create.
    standin.resetCounts();
    const fresh = freshName();
    const v2 = vault();
    const raced = await Promise.all([v2.ensureKey(fresh), v2.ensureKey(fresh), v2.ensureKey(fresh)]);
    expect(standin.counts.create).to.equal(1);
    expect(standin.keyVersions(fresh)).to.have.length(1);
    expect(new Set(raced.map((k) => hex(k.publicKeySpki))).size).to.equal(1);
  });

  it('signs ES384: 96-byte r||s that node:crypto and the vault itself both verify', async () => {
    const v = vault();
    const key = await v.ensureAzureKey(freshName());
    const data = bytes('COSE Sig_structure bytes');
    const signature = await key.signEs384(data);
    expect(signature).to.be.instanceOf(Uint8Array);
    expect(signature.length).to.equal(96);
    expect(verifiesEs384(key.publicKeySpki, data, signature)).to.equal(true);
    expect(verifiesEs384(key.publicKeySpki, bytes('COSE Sig_structure bytez'), signature)).to.equal(false);

    // The vault's own verify operation, through the SDK.
    const crypto = new CryptographyClient(key.keyId, standin.credential(), standin.clientOptions());
    const digest = createHash('sha384').update(data).digest();
    expect((await crypto.verify('ES384', digest, signature)).result).to.equal(true);
    const tampered = Buffer.from(signature);
    tampered[95] ^= 1;
    expect((await crypto.verify('ES384', digest, tampered)).result).to.equal(false);
    expect(standin.counts.verify).to.equal(2);

    // ECDSA is randomised: two signatures over the same data differ, both verify.
    const again = await key.signEs384(data);
    expect(hex(again)).not.to.equal(hex(signature));
    expect(verifiesEs384(key.publicKeySpki, data, again)).to.equal(true);
  });

  it('caches the key and its CryptographyClient: one read per name, then one request per signature', async () => {
    const v = vault();
    const name = freshName();
    await v.ensureKey(name);
    const key = await v.getKey(name);
    await key.signEs384(bytes('warm-up')); // the first signature also reads the pinned version once
    standin.resetCounts();

    for (let i = 0; i < 5; i++) await key.signEs384(bytes(`message ${i}`));
    await v.getKey(name);
    await v.ensureKey(name);
    expect(standin.counts).to.deep.include({ sign: 5, get: 0, create: 0, challenge: 0 });
  });

  it('throws VaultKeyNotFoundError for an absent key and creates nothing', async () => {
    const name = freshName();
    const err = await rejection(vault().getKey(name));
    expect(err).to.be.instanceOf(VaultKeyNotFoundError);
    expect((err as VaultKeyNotFoundError).keyName).to.equal(name);
    expect(standin.counts.create).to.equal(0);
    expect(standin.requests.filter((r) => r.authorized).map((r) => r.status)).to.deep.equal([404]);
  });

  it('throws VaultKeyNotFoundError when a key in use is deleted from the vault, and forgets it', async () => {
    const v = vault();
    const name = freshName();
    const key = await v.ensureKey(name);
    await key.signEs384(bytes('before'));
    standin.deleteKey(name);
    const signErr = await rejection(key.signEs384(bytes('after')));
    expect(signErr).to.be.instanceOf(VaultKeyNotFoundError);
    expect((signErr as VaultKeyNotFoundError).keyName).to.equal(name);
    // The cached key was dropped: the next read asks the vault (and learns the key is gone).
    standin.resetCounts();
    expect(await rejection(v.getKey(name))).to.be.instanceOf(VaultKeyNotFoundError);
    expect(standin.counts.get).to.equal(1);
    // ensureKey makes a new one.
    const recreated = await v.ensureKey(name);
    expect(hex(recreated.publicKeySpki)).not.to.equal(hex(key.publicKeySpki));
  });

  it('rejects invalid key names before any request', async () => {
    const v = vault();
    for (const name of ['', 'a/b', 'under_score', 'x'.repeat(128)]) {
      expect((await rejection(v.ensureKey(name))).message).to.match(/invalid key name/);
      expect((await rejection(v.getKey(name))).message).to.match(/invalid key name/);
    }
    expect(standin.requests).to.have.length(0);
  });

  it('fails with VaultUnavailableError within seconds when the vault is down, and works again when it is back', async function () {
    this.timeout(10_000); // SDK defaults would take longer; ours: 2 retries at 0.5 s and 1 s
    const v = vault();
    const name = freshName();
    const key = await v.ensureKey(name);
    await standin.stop();

    const signErr = await rejection(key.signEs384(bytes('while down')));
    expect(signErr).to.be.instanceOf(VaultUnavailableError);
    expect(signErr.message).to.contain(new URL(standin.vaultUrl).host).and.to.contain(`"${name}"`);
    expect(signErr.message).to.match(/unreachable \(ECONNREFUSED/);
    expect(signErr.message).not.to.contain(standin.acceptedToken);

    const readErr = await rejection(v.getKey(freshName()));
    expect(readErr).to.be.instanceOf(VaultUnavailableError);

    await standin.start();
    const signature = await key.signEs384(bytes('after restart'));
    expect(verifiesEs384(key.publicKeySpki, bytes('after restart'), signature)).to.equal(true);
    // A failed read is not cached: the key can be read now.
    expect(hex((await v.getKey(name)).publicKeySpki)).to.equal(hex(key.publicKeySpki));
  });

  it('fails with VaultUnavailableError before the first request when the vault is down, then recovers', async function () {
    this.timeout(10_000);
    const name = freshName();
    await vault().ensureKey(name);
    await standin.stop();
    const v = vault(); // has never completed a challenge
    expect(await rejection(v.getKey(name))).to.be.instanceOf(VaultUnavailableError);
    await standin.start();
    const key = await v.getKey(name);
    expect(verifiesEs384(key.publicKeySpki, bytes('x'), await key.signEs384(bytes('x')))).to.equal(true);
  });

  it('gives up on a vault that accepts connections but never answers after operationTimeoutMs', async function () {
    this.timeout(10_000);
    const v = vault({ operationTimeoutMs: 1_000 });
    const key = await v.ensureKey(freshName());
    standin.unresponsive = true;
    const err = await rejection(key.signEs384(bytes('into the void')));
    expect(err).to.be.instanceOf(VaultUnavailableError);
    expect(err.message).to.match(/no answer within 1000 ms/);
    standin.unresponsive = false;
    expect((await key.signEs384(bytes('back'))).length).to.equal(96);
  });

  it('retries a transient 503 inside the SDK, and reports persistent 5xx as VaultUnavailableError', async function () {
    this.timeout(10_000);
    const v = vault();
    const key = await v.ensureKey(freshName());
    await key.signEs384(bytes('warm-up'));
    standin.resetCounts();

    standin.failNext(1, 503);
    expect((await key.signEs384(bytes('once'))).length).to.equal(96);
    expect(standin.counts.sign).to.equal(2);

    standin.failNext(100, 500);
    const err = await rejection(key.signEs384(bytes('always')));
    expect(err).to.be.instanceOf(VaultUnavailableError);
    expect(err.message).to.match(/answered 500 ServiceUnavailable/);
    expect(standin.counts.sign).to.equal(2 + 3); // first try and 2 retries
  });

  it('reports a token the vault refuses as VaultUnavailableError (401) without leaking the token', async () => {
    const wrong = new StubTokenCredential('not-the-right-token');
    const err = await rejection(vault({}, wrong).getKey(freshName()));
    expect(err).to.be.instanceOf(VaultUnavailableError);
    expect(err.message).to.match(/answered 401 Unauthorized/).and.to.match(/permissions/);
    expect(err.message).not.to.contain('not-the-right-token');
  });

  it('reports a credential that cannot produce a token as VaultUnavailableError', async () => {
    const credential = standin.credential();
    const failure = new Error('ManagedIdentityCredential: no identity endpoint');
    failure.name = 'CredentialUnavailableError';
    credential.failWith = failure;
    const err = await rejection(vault({}, credential).getKey(freshName()));
    expect(err).to.be.instanceOf(VaultUnavailableError);
    expect(err.message).to.match(/no access token \(CredentialUnavailableError: ManagedIdentityCredential/);
  });

  it('refuses a challenge whose resource is not the vault domain (SDK check), as VaultUnavailableError', async () => {
    const rogue = await AzureKeyVaultStandin.create({ resource: 'https://attacker.example' });
    try {
      const credential = rogue.credential();
      const v = new AzureKeyVault(rogue.vaultUrl, credential, rogue.clientOptions());
      const err = await rejection(v.getKey('anything'));
      expect(err).to.be.instanceOf(VaultUnavailableError);
      expect(err.message).to.match(/does not match the requested domain/);
      expect(credential.requests).to.have.length(0); // no token was requested for the wrong resource
    } finally {
      await rogue.close();
    }
  });

  it('verifies the TLS certificate: without trusting the stand-in CA the connection is refused', async () => {
    const untrusting = new https.Agent({ lookup: standin.lookup }); // same address, system trust only
    try {
      const v = new AzureKeyVault(standin.vaultUrl, standin.credential(), { agent: untrusting });
      const err = await rejection(v.getKey(freshName()));
      expect(err).to.be.instanceOf(VaultUnavailableError);
      expect(err.message).to.match(/certificate|UNABLE_TO|SELF_SIGNED/i);
      expect(standin.requests).to.have.length(0);
    } finally {
      untrusting.destroy();
    }
  });

  it('validates the vault address', () => {
    expect(() => new AzureKeyVault('not a url', standin.credential())).to.throw(/not a valid URL/);
    expect(() => new AzureKeyVault('http://plain.vault.azure.net', standin.credential())).to.throw(/https/);
    const v = new AzureKeyVault('https://Example.vault.azure.net/', standin.credential());
    expect(v.vaultUrl).to.equal('https://example.vault.azure.net');
    expect(v.kind).to.equal('azure');
  });
});
