import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../shared/config.js';
import type { Certificate } from '../../shared/db/repositories/certificates.js';
import type { PkiDeps } from '../../shared/pki/pki-deps.js';
import { derToPem } from '../../shared/pki/pem.js';
import { publicationDir } from '../../shared/pki/publication-files.js';
import { createKeyVault } from '../../shared/vault/index.js';
import type { KeyVault, VaultKey } from '../../shared/vault/types.js';
import { testConfig } from '../support/api.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { nodeScriptArgs } from '../support/node-script.js';

export { openssl } from '../pki/helpers.js';

export interface TrustFixture {
  db: TestDatabase;
  config: Config;
  vault: KeyVault;
  deps: PkiDeps;
  /** <dataDir>/crl, where the CRLs and CA certificates are written. */
  crlDir: string;
  close(): Promise<void>;
}

/** A fresh Postgres database, a temp data dir with the local vault, and PKI deps over them. */
export async function startTrust(env: Record<string, string> = {}): Promise<TrustFixture> {
  const db = await createTestDatabase();
  const config = testConfig({
    DATABASE_URL: db.url,
    OCSP_PORT: '0',
    CRL_PORT: '0',
    TSA_PORT: '0',
    OCSP_URL: 'http://ocsp.trust.test',
    CRL_URL: 'http://crl.trust.test',
    PKI_ORGANISATION: 'Trust Test Org',
    PKI_COUNTRY: 'GB',
    ...env,
  });
  const vault = createKeyVault(config);
  return {
    db,
    config,
    vault,
    deps: { knex: db.knex, vault, config },
    crlDir: publicationDir(config.dataDir),
    async close() {
      await db.drop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Writes certificates as PEM files into `dir` (for openssl), returning their paths by name. */
export function writePems(dir: string, certs: Record<string, Pick<Certificate, 'der'> | Uint8Array>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, c] of Object.entries(certs)) {
    const file = path.join(dir, `${name}.pem`);
    writeFileSync(file, derToPem(c instanceof Uint8Array ? c : c.der));
    out[name] = file;
  }
  return out;
}

/**
 * A vault whose `signEs384` fails for one key name after `allowedSignatures` successful signatures by that key,
 * as a vault outage half way through would.
 */
export function failingVault(inner: KeyVault, failKey: string, error: () => Error, allowedSignatures = 0): KeyVault {
  let signed = 0;
  const wrap = (key: VaultKey): VaultKey =>
    key.name !== failKey
      ? key
      : {
          name: key.name,
          publicKeySpki: key.publicKeySpki,
          async signEs384(data) {
            if (signed++ >= allowedSignatures) throw error();
            return key.signEs384(data);
          },
        };
  return {
    kind: `failing-${inner.kind}`,
    ensureKey: async (name) => wrap(await inner.ensureKey(name)),
    getKey: async (name) => wrap(await inner.getKey(name)),
  };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `npm run pki -- <args>` as an operator runs it, against the fixture's database and data dir (`env` adds to the
 * environment): its exit code and output.
 */
export function pkiCli(t: TrustFixture, env: Record<string, string> = {}): (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }> {
  const environment = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    DATABASE_URL: t.db.url,
    DATA_DIR: t.config.dataDir,
    JWT_SECRET: 'test-secret-for-the-pki-cli',
    OCSP_URL: 'http://ocsp.trust.test',
    CRL_URL: 'http://crl.trust.test',
    ...env,
  };
  return (...args) =>
    new Promise((resolve) =>
      execFile(process.execPath, [...nodeScriptArgs('bin/pki.ts'), ...args], { cwd: ROOT, env: environment, encoding: 'utf8' }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
}
