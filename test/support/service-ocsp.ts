import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { openssl } from '../pki/helpers.js';

/**
 * Asks the service's OCSP responder on `port` about a certificate the sub-CA issued, as a relying party would
 * (`openssl ocsp`, no nonce, the answer verified against the root); its report (`...: good`, `: revoked`, the reason).
 * `files`: PEM files of the root and the sub-CA; the certificate is written beside them in `dir`.
 */
export async function askServiceOcsp(dir: string, files: { root: string; subCa: string }, port: number, certificatePem: string): Promise<string> {
  const file = path.join(dir, `cert-${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, certificatePem);
  const r = await openssl(['ocsp', '-no_nonce', '-issuer', files.subCa, '-cert', file, '-url', `http://127.0.0.1:${port}/`, '-CAfile', files.root], dir);
  expect(r.output).to.include('Response verify OK');
  return r.stdout;
}
