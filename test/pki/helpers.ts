import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  issueLeafCertificate,
  issueRootCa,
  issueSubCa,
  issueTimeStampingCertificate,
  type IssuedCertificate,
} from '../../shared/pki/certificate-templates.js';
import { LocalKeyVault } from '../../shared/vault/local.js';
import type { VaultKey } from '../../shared/vault/types.js';

export interface OpensslResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout + stderr: `openssl crl -verify` writes "verify OK" to stderr and exits 0 either way. */
  output: string;
}

/** Runs the openssl CLI; never throws on a non-zero exit (the caller checks code and text). */
export function openssl(args: string[], cwd?: string): Promise<OpensslResult> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') {
        reject(err); // spawn failure (ENOENT), not an exit status
        return;
      }
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr, output: `${stdout}\n${stderr}` });
    });
  });
}

export const CRL_URL = 'http://crl.example.test';
export const OCSP_URL = 'http://ocsp.example.test';
export const DAY = 24 * 60 * 60 * 1000;

export function tempDir(prefix = 'pki-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestChain {
  dir: string;
  vault: LocalKeyVault;
  keys: { root: VaultKey; subCa: VaultKey; leaf: VaultKey; tsa: VaultKey };
  root: IssuedCertificate;
  subCa: IssuedCertificate;
  leaf: IssuedCertificate;
  tsa: IssuedCertificate;
  /** Files written in dir: root.pem, sub-ca.pem, leaf.pem, tsa.pem. */
  file: (name: string) => string;
  write: (name: string, data: string | Uint8Array) => string;
}

/** A root -> sub-CA -> leaf + TSA chain issued by the project's own code, keys in a LocalKeyVault in `dir`. */
export async function issueTestChain(dir: string, now = Date.now()): Promise<TestChain> {
  const vault = new LocalKeyVault(dir);
  const [root, subCa, leaf, tsa] = await Promise.all(['root-ca', 'sub-ca', 'leaf', 'tsa'].map((n) => vault.ensureKey(n)));
  const keys = { root: root!, subCa: subCa!, leaf: leaf!, tsa: tsa! };
  const notBefore = new Date(now - 60_000);
  const rootCert = await issueRootCa({
    subject: { commonName: 'PKI Test Root CA', organization: 'PKI Test Org', country: 'US' },
    notBefore,
    notAfter: new Date(now + 3650 * DAY),
    key: keys.root,
  });
  const subCert = await issueSubCa({
    subject: { commonName: 'PKI Test Sub CA', organization: 'PKI Test Org', country: 'US' },
    notBefore,
    notAfter: new Date(now + 1825 * DAY),
    subjectPublicKeySpki: keys.subCa.publicKeySpki,
    issuer: { certificateDer: rootCert.der, key: keys.root },
    crlUrl: CRL_URL,
  });
  const endEntity = (cn: string, key: VaultKey) => ({
    subject: { commonName: cn, organization: 'PKI Test Org', country: 'US' },
    notBefore,
    notAfter: new Date(now + 365 * DAY),
    subjectPublicKeySpki: key.publicKeySpki,
    issuer: { certificateDer: subCert.der, key: keys.subCa },
    crlUrl: CRL_URL,
    ocspUrl: OCSP_URL,
  });
  const leafCert = await issueLeafCertificate(endEntity('PKI Test Leaf', keys.leaf));
  const tsaCert = await issueTimeStampingCertificate(endEntity('PKI Test TSA', keys.tsa));
  const file = (name: string) => path.join(dir, name);
  const write = (name: string, data: string | Uint8Array) => {
    writeFileSync(file(name), data);
    return file(name);
  };
  write('root.pem', rootCert.pem);
  write('sub-ca.pem', subCert.pem);
  write('leaf.pem', leafCert.pem);
  write('tsa.pem', tsaCert.pem);
  return { dir, vault, keys, root: rootCert, subCa: subCert, leaf: leafCert, tsa: tsaCert, file, write };
}

/** A leaf for `chain`'s leaf key that expires `lifetimeMs` from now: to see what a validator says once it has. */
export function issueShortLivedLeaf(chain: TestChain, lifetimeMs: number, commonName = 'Short-lived Leaf'): Promise<IssuedCertificate> {
  const now = Date.now();
  return issueLeafCertificate({
    subject: { commonName, organization: 'PKI Test Org', country: 'US' },
    subjectPublicKeySpki: chain.keys.leaf.publicKeySpki,
    issuer: { certificateDer: chain.subCa.der, key: chain.keys.subCa },
    crlUrl: CRL_URL,
    ocspUrl: OCSP_URL,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + lifetimeMs),
  });
}

/** Awaits `p` and asserts it rejects with an instance of `type` (message matching `message`, if given). */
export async function expectReject(p: Promise<unknown>, type: new (...args: never[]) => Error, message?: RegExp): Promise<Error> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    if (message) expect((err as Error).message).to.match(message);
    return err as Error;
  }
  return expect.fail(`expected a ${type.name}`);
}
