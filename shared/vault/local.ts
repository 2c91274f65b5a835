import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type KeyVault, type VaultKey, VaultKeyNotFoundError } from './types.js';

const KEY_NAME = /^[A-Za-z0-9-]{1,127}$/;

export function keyFromPrivate(name: string, privateKey: KeyObject): VaultKey {
  const publicKeySpki = new Uint8Array(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }));
  return {
    name,
    publicKeySpki,
    // ieee-p1363 is raw r||s, the same shape Azure Key Vault returns. Signed in libuv's thread pool: a P-384
    // signature would otherwise hold the caller's event loop (the OCSP role's answers to its fronts, for one).
    signEs384: (data) =>
      new Promise((resolve, reject) => {
        sign('sha384', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }, (err, signature) => (err ? reject(err) : resolve(new Uint8Array(signature))));
      }),
  };
}

/**
 * The embedded default: P-384 keys as PKCS#8 PEM files in `<dataDir>/vault`, readable by the owner only.
 * Names follow Azure Key Vault's rules so that a name that works here works there.
 */
export class LocalKeyVault implements KeyVault {
  readonly kind = 'local';
  private readonly dir: string;
  private readonly cache = new Map<string, VaultKey>();
  /** ensureKey calls in flight, by name: concurrent callers in one process share one attempt. */
  private readonly ensuring = new Map<string, Promise<VaultKey>>();

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'vault');
  }

  private file(name: string): string {
    if (!KEY_NAME.test(name)) throw new Error(`invalid key name "${name}": use 1-127 letters, digits and dashes`);
    return path.join(this.dir, `${name}.pem`);
  }

  async getKey(name: string): Promise<VaultKey> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    let pem: string;
    try {
      pem = await readFile(this.file(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new VaultKeyNotFoundError(name);
      throw err;
    }
    const key = keyFromPrivate(name, createPrivateKey(pem));
    this.cache.set(name, key);
    return key;
  }

  ensureKey(name: string): Promise<VaultKey> {
    let pending = this.ensuring.get(name);
    if (!pending) {
      pending = this.getOrCreate(name).finally(() => this.ensuring.delete(name));
      this.ensuring.set(name, pending);
    }
    return pending;
  }

  private async getOrCreate(name: string): Promise<VaultKey> {
    try {
      return await this.getKey(name);
    } catch (err) {
      if (!(err instanceof VaultKeyNotFoundError)) throw err;
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // mkdir leaves an existing directory as it is; key files belong in an owner-only one.
    await chmod(this.dir, 0o700);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const target = this.file(name);
    // Unique per attempt: several instances (or processes) may race on the same name.
    const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, pem, { mode: 0o600, flag: 'wx' });
    try {
      // A hard link fails if another process created the key first; then theirs wins.
      await link(temp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await unlink(temp);
    }
    return this.getKey(name);
  }
}
