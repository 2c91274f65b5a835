import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalKeyVault } from '../../shared/vault/local.js';
import type { VaultKey } from '../../shared/vault/types.js';

/**
 * A P-384 root -> sub-CA -> leaf (+ TSA) chain made by the openssl CLI, independent of the project's own
 * certificate code, with the keys placed where LocalKeyVault finds them. Tests use it as a reference chain.
 */
export interface OpensslChain {
  dir: string;
  vault: LocalKeyVault;
  files: { root: string; subCa: string; leaf: string; tsa: string };
  pem: { root: string; subCa: string; leaf: string; tsa: string };
  der: { root: Uint8Array; subCa: Uint8Array; leaf: Uint8Array; tsa: Uint8Array };
  keys: { root: VaultKey; subCa: VaultKey; leaf: VaultKey; tsa: VaultKey };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export async function makeOpensslChain(options: { days?: number; cn?: string } = {}): Promise<OpensslChain> {
  const days = String(options.days ?? 30);
  const cn = options.cn ?? 'Test';
  const dir = mkdtempSync(path.join(tmpdir(), 'chain-'));
  const vaultDir = path.join(dir, 'vault');
  mkdirSync(vaultDir, { mode: 0o700 });
  const key = (name: string) => path.join(vaultDir, `${name}.pem`);
  for (const name of ['root', 'sub-ca', 'leaf', 'tsa']) {
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-out', key(name)], dir);
  }
  writeFileSync(
    path.join(dir, 'ext.cnf'),
    [
      '[root]',
      'basicConstraints=critical,CA:TRUE',
      'keyUsage=critical,keyCertSign,cRLSign',
      'subjectKeyIdentifier=hash',
      '[subca]',
      'basicConstraints=critical,CA:TRUE,pathlen:0',
      'keyUsage=critical,keyCertSign,cRLSign',
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      '[leaf]',
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=emailProtection',
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      '[tsa]',
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=critical,timeStamping',
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      '',
    ].join('\n'),
  );
  const subj = (name: string) => `/C=US/O=${cn} Org/CN=${cn} ${name}`;
  openssl(['req', '-new', '-x509', '-key', key('root'), '-sha384', '-days', days, '-subj', subj('Root CA'),
    '-extensions', 'root', '-config', 'ext.cnf', '-out', 'root.pem'], dir);
  const issue = (name: string, section: string, issuerCert: string, issuerKey: string, out: string) => {
    openssl(['req', '-new', '-key', key(name), '-subj', subj(section), '-out', `${name}.csr`], dir);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', issuerCert, '-CAkey', issuerKey, '-CAcreateserial',
      '-sha384', '-days', days, '-extfile', 'ext.cnf', '-extensions', section, '-out', out], dir);
  };
  issue('sub-ca', 'subca', 'root.pem', key('root'), 'sub-ca.pem');
  issue('leaf', 'leaf', 'sub-ca.pem', key('sub-ca'), 'leaf.pem');
  issue('tsa', 'tsa', 'sub-ca.pem', key('sub-ca'), 'tsa.pem');

  const files = {
    root: path.join(dir, 'root.pem'),
    subCa: path.join(dir, 'sub-ca.pem'),
    leaf: path.join(dir, 'leaf.pem'),
    tsa: path.join(dir, 'tsa.pem'),
  };
  const readPem = (f: string) => readFileSync(f, 'utf8');
  const toDer = (pem: string) =>
    new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
  const pem = { root: readPem(files.root), subCa: readPem(files.subCa), leaf: readPem(files.leaf), tsa: readPem(files.tsa) };
  const vault = new LocalKeyVault(dir);
  return {
    dir,
    vault,
    files,
    pem,
    der: { root: toDer(pem.root), subCa: toDer(pem.subCa), leaf: toDer(pem.leaf), tsa: toDer(pem.tsa) },
    keys: {
      root: await vault.getKey('root'),
      subCa: await vault.getKey('sub-ca'),
      leaf: await vault.getKey('leaf'),
      tsa: await vault.getKey('tsa'),
    },
  };
}
