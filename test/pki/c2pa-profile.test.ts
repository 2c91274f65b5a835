/**
 * The C2PA certificate profile (shared/pki/c2pa-profile.ts): the service's own root, sub-CA, service leaf,
 * organisation leaf and TSA certificates meet it (so an operator can take the service CA through the C2PA
 * conformance program), and certificates made by OpenSSL that break a rule are told apart, rule by rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { c2paProfileProblems, type ProfileKind } from '../../shared/pki/c2pa-profile.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { ensureOrgCertificate } from '../../shared/pki/org-signing.js';
import { pemToDer } from '../../shared/pki/pem.js';
import { startTrust, type TrustFixture } from '../trust/support.js';
import { openssl, tempDir } from './helpers.js';

describe('pki/c2pa-profile: the C2PA 2.2 certificate profile', function () {
  this.timeout(60_000);
  const tmp = tempDir('c2pa-profile-');
  let trust: TrustFixture;
  let pki: InitPkiResult;

  before(async () => {
    trust = await startTrust();
    pki = await initPki(trust.deps);
  });
  after(async () => {
    await trust?.close();
    tmp.cleanup();
  });

  it("the service CA's root, sub-CA, leaf and TSA certificates meet it, at issuance and now", async () => {
    const orgId = 'c2c2c2c2-0000-4000-8000-000000000001';
    await trust.db.knex('organisations').insert({ id: orgId, name: 'Profile Org' });
    const orgLeaf = await ensureOrgCertificate(trust.deps, orgId);
    const cases: [string, Uint8Array, ProfileKind][] = [
      ['root', pki.root.der, 'ca'],
      ['sub-CA', pki.subCa.der, 'ca'],
      ['service leaf', pki.leaf.der, 'claim_signer'],
      ['organisation leaf', orgLeaf.der, 'claim_signer'],
      ['TSA', pki.tsa.der, 'tsa'],
    ];
    for (const [name, der, kind] of cases) {
      expect(c2paProfileProblems(der, kind, { at: new Date() }), name).to.deep.equal([]);
    }
    // And each only in its own role: a CA is no claim signer, a claim signer no TSA.
    expect(c2paProfileProblems(pki.subCa.der, 'claim_signer')).to.include('an end-entity certificate with basicConstraints cA TRUE');
    expect(c2paProfileProblems(pki.leaf.der, 'tsa')).to.include('extendedKeyUsage lacks id-kp-timeStamping');
    expect(c2paProfileProblems(pki.tsa.der, 'claim_signer')).to.include('a claim signer with id-kp-timeStamping or id-kp-OCSPSigning');
    expect(c2paProfileProblems(pki.leaf.der, 'claim_signer', { at: new Date(pki.leaf.not_after.getTime() + 1000) })[0]).to.match(/^not valid at/);
  });

  /** A self-signed certificate made by OpenSSL with `-addext` lines (self-issued: no AKI needed). */
  async function made(name: string, keyArgs: string[], extensions: string[], digest = '-sha256'): Promise<Uint8Array> {
    const args = ['req', '-x509', '-new', '-nodes', ...keyArgs, '-keyout', `${name}.key`, digest, '-days', '5', '-subj', `/CN=${name}`, '-config', '/dev/null', ...extensions.flatMap((e) => ['-addext', e]), '-out', `${name}.pem`];
    const r = await openssl(args, tmp.dir);
    expect(r.code, r.output).to.equal(0);
    return pemToDer(readFileSync(path.join(tmp.dir, `${name}.pem`), 'utf8'));
  }
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const signer = ['keyUsage=critical,digitalSignature', 'basicConstraints=critical,CA:FALSE', 'subjectKeyIdentifier=hash'];

  it('tells which rule a certificate made by OpenSSL breaks', async () => {
    const good = await made('good', ec, [...signer, 'extendedKeyUsage=1.3.6.1.5.5.7.3.36']);
    expect(c2paProfileProblems(good, 'claim_signer')).to.deep.equal([]);
    const c2paOid = await made('c2pa-oid', ec, [...signer, 'extendedKeyUsage=1.3.6.1.4.1.62558.2.1']);
    expect(c2paProfileProblems(c2paOid, 'claim_signer')).to.deep.equal([]);

    const cases: [string, Uint8Array, ProfileKind, string][] = [
      ['no EKU', await made('no-eku', ec, signer), 'claim_signer', 'extendedKeyUsage is absent'],
      ['serverAuth only', await made('server', ec, [...signer, 'extendedKeyUsage=serverAuth']), 'claim_signer', 'extendedKeyUsage has none of id-kp-documentSigning, id-kp-emailProtection, C2PA claim signing'],
      ['anyExtendedKeyUsage', await made('any', ec, [...signer, 'extendedKeyUsage=anyExtendedKeyUsage,emailProtection']), 'claim_signer', 'extendedKeyUsage contains anyExtendedKeyUsage'],
      ['timeStamping beside others', await made('ts-mix', ec, [...signer, 'extendedKeyUsage=timeStamping,emailProtection']), 'claim_signer', 'extendedKeyUsage 1.3.6.1.5.5.7.3.8 is not alone'],
      ['keyUsage not critical', await made('ku', ec, ['keyUsage=digitalSignature', 'extendedKeyUsage=emailProtection']), 'claim_signer', 'keyUsage is not critical'],
      ['keyCertSign on a signer', await made('kcs', ec, ['keyUsage=critical,digitalSignature,keyCertSign', 'extendedKeyUsage=emailProtection']), 'claim_signer', 'keyUsage keyCertSign on an end entity'],
      ['RSA 1024', await made('rsa', ['-newkey', 'rsa:1024'], [...signer, 'extendedKeyUsage=emailProtection']), 'claim_signer', 'RSA key of 1024 bits is shorter than 2048'],
      ['SHA-1', await made('sha1', ec, [...signer, 'extendedKeyUsage=emailProtection'], '-sha1'), 'claim_signer', 'signature algorithm 1.2.840.10045.4.1 is not allowed'],
      ['TSA EKU not critical', await made('tsa', ec, [...signer, 'extendedKeyUsage=timeStamping']), 'tsa', 'extendedKeyUsage is not critical'],
      ['CA basicConstraints not critical', await made('ca', ec, ['basicConstraints=CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash']), 'ca', 'basicConstraints is not critical'],
      ['CA without keyCertSign', await made('ca-ku', ec, ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,cRLSign', 'subjectKeyIdentifier=hash']), 'ca', 'keyUsage lacks keyCertSign'],
      ['CA without SKI', await made('ca-ski', ec, ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign', 'subjectKeyIdentifier=none']), 'ca', 'subjectKeyIdentifier is absent'],
    ];
    for (const [name, der, kind, problem] of cases) expect(c2paProfileProblems(der, kind), name).to.include(problem);
  });
});
