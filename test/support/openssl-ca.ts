import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pemToDer } from '../../shared/pki/pem.js';
import { LocalKeyVault } from '../../shared/vault/local.js';
import type { VaultKey } from '../../shared/vault/types.js';

/**
 * A certificate authority run with `openssl ca` (root -> issuing intermediate, P-256, SHA-256), standing for an
 * external CA: it issues from the CSRs the service makes, as a real CA would, copying the requested extensions.
 * Also a TSA certificate for `openssl ts -reply`.
 */
export interface OpensslCa {
  dir: string;
  rootPem: string;
  intermediatePem: string;
  rootFile: string;
  /** Issues from `csrPem`; by default copies the requested extensions and adds SKI/AKI. */
  issue(csrPem: string, options?: IssueOptions): string;
  /** A TSA certificate (EKU timeStamping, critical) and its key under the intermediate: files for `openssl ts`. */
  issueTsa(name?: string, extensions?: string[]): { cert: string; key: string; chain: string };
  cleanup(): void;
}

export interface IssueOptions {
  /** Extensions the CA sets itself instead of copying the request's (e.g. 'extendedKeyUsage=serverAuth'). */
  ownExtensions?: string[];
  /** openssl ca -startdate / -enddate (YYYYMMDDHHMMSSZ); default: now for `days`. */
  startdate?: string;
  enddate?: string;
  days?: number;
}

function run(args: string[], cwd: string): string {
  return execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const config = (copy: 'copy' | 'none', own: string[]) => `[ca]
default_ca = CA_default
[CA_default]
dir = .
database = index.txt
new_certs_dir = newcerts
serial = serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = ${copy}
email_in_dn = no
[policy_any]
countryName = optional
stateOrProvinceName = optional
localityName = optional
organizationName = optional
organizationalUnitName = optional
commonName = supplied
[root]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[tsa]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[signer]
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
${own.join('\n')}
`;

export function makeOpensslCa(name = 'Outside'): OpensslCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'openssl-ca-'));
  mkdirSync(path.join(dir, 'newcerts'));
  writeFileSync(path.join(dir, 'index.txt'), '');
  writeFileSync(path.join(dir, 'serial'), '1000\n');
  writeFileSync(path.join(dir, 'ca.cnf'), config('copy', []));
  const key = (file: string) => run(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], dir);
  key('root.key');
  key('int.key');
  run(['req', '-new', '-x509', '-key', 'root.key', '-sha256', '-days', '60', '-subj', `/C=GB/O=${name} CA/CN=${name} Root`, '-extensions', 'root', '-config', 'ca.cnf', '-out', 'root.pem'], dir);
  run(['req', '-new', '-key', 'int.key', '-subj', `/C=GB/O=${name} CA/CN=${name} Issuing CA`, '-out', 'int.csr'], dir);
  run(['ca', '-batch', '-config', 'ca.cnf', '-cert', 'root.pem', '-keyfile', 'root.key', '-extensions', 'intermediate', '-days', '60', '-notext', '-in', 'int.csr', '-out', 'int.pem'], dir);
  let n = 0;
  return {
    dir,
    rootPem: readFileSync(path.join(dir, 'root.pem'), 'utf8'),
    intermediatePem: readFileSync(path.join(dir, 'int.pem'), 'utf8'),
    rootFile: path.join(dir, 'root.pem'),
    issue(csrPem, options = {}) {
      n += 1;
      writeFileSync(path.join(dir, `req-${n}.csr`), csrPem);
      const own = options.ownExtensions ?? [];
      writeFileSync(path.join(dir, `ca-${n}.cnf`), config(own.length > 0 ? 'none' : 'copy', own));
      const validity = options.startdate ? ['-startdate', options.startdate, '-enddate', options.enddate!] : ['-days', String(options.days ?? 30)];
      run(['ca', '-batch', '-config', `ca-${n}.cnf`, '-cert', 'int.pem', '-keyfile', 'int.key', '-extensions', 'signer', '-preserveDN', ...validity, '-notext', '-in', `req-${n}.csr`, '-out', `leaf-${n}.pem`], dir);
      return readFileSync(path.join(dir, `leaf-${n}.pem`), 'utf8');
    },
    issueTsa(tsaName = 'tsa', extensions) {
      key(`${tsaName}.key`);
      run(['req', '-new', '-key', `${tsaName}.key`, '-subj', `/C=GB/O=${name} CA/CN=${name} ${tsaName}`, '-out', `${tsaName}.csr`], dir);
      // The CA's own extensions (signer section) when given, else the TSA profile's.
      writeFileSync(path.join(dir, `ca-${tsaName}.cnf`), config('none', extensions ?? []));
      run(['ca', '-batch', '-config', `ca-${tsaName}.cnf`, '-cert', 'int.pem', '-keyfile', 'int.key', '-extensions', extensions ? 'signer' : 'tsa', '-days', '30', '-notext', '-in', `${tsaName}.csr`, '-out', `${tsaName}.pem`], dir);
      writeFileSync(path.join(dir, 'tsa-chain.pem'), readFileSync(path.join(dir, 'int.pem'), 'utf8'));
      return { cert: path.join(dir, `${tsaName}.pem`), key: path.join(dir, `${tsaName}.key`), chain: path.join(dir, 'tsa-chain.pem') };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A person's identity certificate from `ca`, for a key of their own that the service has no record of. */
export interface OpensslPerson {
  key: VaultKey;
  /** The person's certificate, then the CA's intermediate: what an identity assertion embeds. */
  chainDer: Uint8Array[];
}

/**
 * Issues a CAWG identity certificate (CN = name, O = organisation, the e-mail address in subjectAltName, EKU
 * emailProtection) for a new P-384 key kept in `dataDir`'s vault.
 */
export async function opensslPerson(ca: OpensslCa, dataDir: string, person: { name: string; organisation: string; email: string }): Promise<OpensslPerson> {
  const key = await new LocalKeyVault(dataDir).ensureKey('person');
  const keyFile = path.join(dataDir, 'vault', 'person.pem');
  const ext = [`subjectAltName=email:${person.email}`, 'extendedKeyUsage=emailProtection', 'keyUsage=critical,digitalSignature'].flatMap((e) => ['-addext', e]);
  const csr = run(['req', '-new', '-key', keyFile, '-subj', `/O=${person.organisation}/CN=${person.name}`, ...ext], dataDir);
  return { key, chainDer: [pemToDer(ca.issue(csr)), pemToDer(ca.intermediatePem)] };
}
