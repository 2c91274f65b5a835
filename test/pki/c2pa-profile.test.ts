/**
 * The C2PA certificate profile (shared/pki/c2pa-profile.ts): the service's own root, sub-CA, service leaf,
 * organisation leaf and TSA certificates meet it (so an operator can take the service CA through the C2PA
 * conformance program), and certificates issued by OpenSSL that break one rule each are refused with words naming
 * that rule, while conforming ones pass.
 */
import { sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, Time } from '@peculiar/asn1-x509';
import { expect } from 'chai';
import { c2paProfileProblems, type ProfileKind } from '../../shared/pki/c2pa-profile.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { ensureOrgCertificate } from '../../shared/pki/org-signing.js';
import { pemToDer } from '../../shared/pki/pem.js';
import { startTrust, type TrustFixture } from '../trust/support.js';
import { openssl, tempDir } from './helpers.js';

const KEYS = {
  p256: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  secp256k1: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:secp256k1'],
  explicitCurve: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-pkeyopt', 'ec_param_enc:explicit'],
  rsa1024: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'],
  rsa2048: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  ed25519: ['-algorithm', 'ED25519'],
};
const SIGNER = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];
const CA = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'];

describe('pki/c2pa-profile: the C2PA 2.2 certificate profile', function () {
  this.timeout(120_000);
  const tmp = tempDir('c2pa-profile-');
  let trust: TrustFixture;
  let pki: InitPkiResult;

  async function run(args: string[]): Promise<void> {
    const r = await openssl(args, tmp.dir);
    expect(r.code, `openssl ${args.join(' ')}\n${r.output}`).to.equal(0);
  }
  const der = (name: string) => pemToDer(readFileSync(path.join(tmp.dir, `${name}.pem`), 'utf8'));

  /** A self-signed CA made by `openssl req -x509` (a root: self-issued, no AKI needed). */
  async function root(name: string, key: string[], extensions: string[], digest = ['-sha256']): Promise<void> {
    await run(['genpkey', ...key, '-out', `${name}.key`]);
    writeFileSync(path.join(tmp.dir, `${name}.cnf`), ['[ext]', ...extensions, ''].join('\n'));
    await run(['req', '-new', '-x509', '-key', `${name}.key`, ...digest, '-days', '5', '-subj', `/CN=${name}`, '-config', `${name}.cnf`, '-extensions', 'ext', '-out', `${name}.pem`]);
  }

  /**
   * A certificate issued by `openssl x509 -req` under `issuer` with the extensions of an -extfile (none: a version 1
   * certificate); `sign` adds digest / -sigopt arguments.
   */
  async function issue(name: string, extensions: string[], options: { key?: string[]; issuer?: string; sign?: string[] } = {}): Promise<Uint8Array> {
    const issuer = options.issuer ?? 'int';
    await run(['genpkey', ...(options.key ?? KEYS.p256), '-out', `${name}.key`]);
    await run(['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-config', '/dev/null', '-out', `${name}.csr`]);
    writeFileSync(path.join(tmp.dir, `${name}.cnf`), ['[ext]', ...extensions, ''].join('\n'));
    const ext = extensions.length > 0 ? ['-extfile', `${name}.cnf`, '-extensions', 'ext'] : [];
    await run(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-CAcreateserial', ...(options.sign ?? ['-sha256']), '-days', '5', ...ext, '-out', `${name}.pem`]);
    return der(name);
  }

  /** `certificate` changed by `change` and signed again by the EC intermediate (what OpenSSL's options cannot make). */
  function resigned(certificate: Uint8Array, change: (c: Certificate) => void): Uint8Array {
    const c = AsnConvert.parse(certificate, Certificate);
    change(c);
    const tbs = Buffer.from(AsnConvert.serialize(c.tbsCertificate));
    const signature = sign('sha256', tbs, readFileSync(path.join(tmp.dir, 'int.key'), 'utf8'));
    c.signatureValue = new Uint8Array(signature).buffer;
    return new Uint8Array(AsnConvert.serialize(c));
  }

  before(async () => {
    trust = await startTrust();
    pki = await initPki(trust.deps);
    await root('root', KEYS.p256, CA.slice(0, 3));
    await issue('int', CA, { issuer: 'root' });
    await root('rsa-root', KEYS.rsa2048, CA.slice(0, 3));
    await root('ed-root', KEYS.ed25519, CA.slice(0, 3), []);
  });
  after(async () => {
    await trust?.close();
    tmp.cleanup();
  });

  it("the service CA's root, sub-CA, leaf and TSA certificates meet it, at issuance and now", async () => {
    const orgId = 'c2c2c2c2-0000-4000-8000-000000000001';
    await trust.db.knex('organisations').insert({ id: orgId, name: 'Profile Org' });
    const orgLeaf = await ensureOrgCertificate(trust.deps, orgId);
    const cases: [string, Uint8Array, ProfileKind, Date][] = [
      ['root', pki.root.der, 'ca', pki.root.not_before],
      ['sub-CA', pki.subCa.der, 'ca', pki.subCa.not_before],
      ['service leaf', pki.leaf.der, 'claim_signer', pki.leaf.not_before],
      ['organisation leaf', orgLeaf.der, 'claim_signer', orgLeaf.not_before],
      ['TSA', pki.tsa.der, 'tsa', pki.tsa.not_before],
    ];
    for (const [name, certificate, kind, issued] of cases) {
      expect(c2paProfileProblems(certificate, kind, { at: issued }), `${name} at issuance`).to.deep.equal([]);
      expect(c2paProfileProblems(certificate, kind), `${name} now`).to.deep.equal([]);
    }
    // Each in its role: a CA is no end entity, a claim signer no TSA, a TSA no claim signer (c2pa-rs's has_allowed_eku
    // would take id-kp-timeStamping alone; the service asks a claim signer for a signing purpose).
    expect(c2paProfileProblems(pki.subCa.der, 'claim_signer')).to.include('an end-entity certificate with basicConstraints cA TRUE');
    expect(c2paProfileProblems(pki.leaf.der, 'tsa')).to.include('extendedKeyUsage lacks id-kp-timeStamping');
    expect(c2paProfileProblems(pki.leaf.der, 'ca')).to.include('basicConstraints cA is not TRUE');
    expect(c2paProfileProblems(pki.tsa.der, 'claim_signer')).to.deep.equal([`extendedKeyUsage has no signing purpose (one of 1.3.6.1.5.5.7.3.4, 1.3.6.1.5.5.7.3.36, 1.3.6.1.4.1.311.76.59.1.9, 1.3.6.1.4.1.62558.2.1)`]);
  });

  it('passes conforming certificates issued by OpenSSL', async () => {
    const passing: [string, Uint8Array, ProfileKind][] = [
      ['documentSigning', await issue('ok-doc', [...SIGNER, 'extendedKeyUsage=1.3.6.1.5.5.7.3.36']), 'claim_signer'],
      ['emailProtection, keyUsage not critical', await issue('ok-ku', ['keyUsage=digitalSignature', 'authorityKeyIdentifier=keyid', 'extendedKeyUsage=emailProtection']), 'claim_signer'],
      ['C2PA claim signing EKU', await issue('ok-c2pa', [...SIGNER, 'extendedKeyUsage=1.3.6.1.4.1.62558.2.1']), 'claim_signer'],
      ['MS C2PA signing EKU', await issue('ok-ms', [...SIGNER, 'extendedKeyUsage=1.3.6.1.4.1.311.76.59.1.9']), 'claim_signer'],
      ['no basicConstraints, P-384 key, ecdsa-with-SHA512', await issue('ok-nobc', ['keyUsage=critical,digitalSignature', 'authorityKeyIdentifier=keyid', 'extendedKeyUsage=emailProtection'], { key: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'], sign: ['-sha512'] }), 'claim_signer'],
      ['Ed25519 key', await issue('ok-ed-key', [...SIGNER, 'extendedKeyUsage=emailProtection'], { key: KEYS.ed25519 }), 'claim_signer'],
      ['signed Ed25519', await issue('ok-ed-sig', [...SIGNER, 'extendedKeyUsage=emailProtection'], { issuer: 'ed-root', sign: [] }), 'claim_signer'],
      ['signed RSASSA-PSS SHA-256', await issue('ok-pss', [...SIGNER, 'extendedKeyUsage=emailProtection'], { issuer: 'rsa-root', sign: ['-sha256', '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'] }), 'claim_signer'],
      ['RSA 2048 key, sha384WithRSAEncryption', await issue('ok-rsa', [...SIGNER, 'extendedKeyUsage=emailProtection'], { key: KEYS.rsa2048, issuer: 'rsa-root', sign: ['-sha384'] }), 'claim_signer'],
      ['critical cRLDistributionPoints (OpenSSL processes it)', await issue('ok-crldp', [...SIGNER, 'extendedKeyUsage=emailProtection', 'crlDistributionPoints=critical,URI:http://crl.example.test/c.crl']), 'claim_signer'],
      ['TSA', await issue('ok-tsa', [...SIGNER, 'extendedKeyUsage=critical,timeStamping']), 'tsa'],
      ['TSA with keyUsage nonRepudiation only', await issue('ok-tsa-nr', ['keyUsage=critical,nonRepudiation', 'authorityKeyIdentifier=keyid', 'extendedKeyUsage=critical,timeStamping']), 'tsa'],
      ['root CA (self-signed, no AKI)', der('root'), 'ca'],
      ['intermediate CA', der('int'), 'ca'],
      ['CA with an EKU it may delegate (timeStamping)', await issue('ok-ca-eku', [...CA, 'extendedKeyUsage=timeStamping']), 'ca'],
    ];
    for (const [name, certificate, kind] of passing) expect(c2paProfileProblems(certificate, kind), name).to.deep.equal([]);
  });

  it('refuses each rule broken, naming it', async () => {
    const email = 'extendedKeyUsage=emailProtection';
    const pss = (...more: string[]) => ({ issuer: 'rsa-root', sign: ['-sha256', '-sigopt', 'rsa_padding_mode:pss', ...more] });
    const good = await issue('good', [...SIGNER, email]);
    const cases: [string, Uint8Array, ProfileKind, string | RegExp | (string | RegExp)[]][] = [
      // version, validity, algorithms, keys, unique ids (c2pa-rs certificate_profile.rs)
      ['version 1', await issue('v1', []), 'claim_signer', ['not an X.509 v3 certificate', 'extendedKeyUsage is absent', 'keyUsage is absent', 'authorityKeyIdentifier is absent']],
      ['expired (judged now when no time is given)', resigned(good, (c) => (c.tbsCertificate.validity.notAfter = new Time(new Date(Date.now() - 60_000)))), 'claim_signer', /^not valid at /],
      ['not yet valid at the signing time', good, 'claim_signer', /^not valid at /],
      ['ecdsa-with-SHA1', await issue('sha1', [...SIGNER, email], { sign: ['-sha1'] }), 'claim_signer', 'signature algorithm 1.2.840.10045.4.1 is not allowed'],
      ['sha1WithRSAEncryption', await issue('rsa-sha1', [...SIGNER, email], { issuer: 'rsa-root', sign: ['-sha1'] }), 'claim_signer', 'signature algorithm 1.2.840.113549.1.1.5 is not allowed'],
      ['RSASSA-PSS, MGF1 hash differs', await issue('pss-mgf', [...SIGNER, email], pss('-sigopt', 'rsa_mgf1_md:sha384')), 'claim_signer', 'RSASSA-PSS mask generation hash 2.16.840.1.101.3.4.2.2 is not its hash 2.16.840.1.101.3.4.2.1'],
      ['RSASSA-PSS with SHA-1 (hash left to its default)', await issue('pss-sha1', [...SIGNER, email], { issuer: 'rsa-root', sign: ['-sha1', '-sigopt', 'rsa_padding_mode:pss'] }), 'claim_signer', 'RSASSA-PSS parameters lack hashAlgorithm or maskGenAlgorithm'],
      ['RSASSA-PSS with SHA-224 throughout', await issue('pss-224', [...SIGNER, email], { issuer: 'rsa-root', sign: ['-sha224', '-sigopt', 'rsa_padding_mode:pss'] }), 'claim_signer', 'RSASSA-PSS hash 2.16.840.1.101.3.4.2.4 is not SHA-256, SHA-384 or SHA-512'],
      ['EC secp256k1 key', await issue('k1', [...SIGNER, email], { key: KEYS.secp256k1 }), 'claim_signer', 'EC curve 1.3.132.0.10 is not P-256, P-384 or P-521'],
      ['EC key with explicit curve parameters', await issue('explicit', [...SIGNER, email], { key: KEYS.explicitCurve }), 'claim_signer', 'EC key without a named curve'],
      ['RSA 1024 key', await issue('rsa1024', [...SIGNER, email], { key: KEYS.rsa1024 }), 'claim_signer', 'RSA key of 1024 bits is shorter than 2048'],
      ['subject unique id', resigned(good, (c) => (c.tbsCertificate.subjectUniqueID = new Uint8Array([0, 1, 2]).buffer)), 'claim_signer', 'issuer or subject unique identifiers are present'],
      // extendedKeyUsage (certificate_profile.rs with certificate_trust_policy.rs has_allowed_eku)
      ['no EKU', await issue('no-eku', SIGNER), 'claim_signer', 'extendedKeyUsage is absent'],
      ['serverAuth only', await issue('server', [...SIGNER, 'extendedKeyUsage=serverAuth']), 'claim_signer', /^extendedKeyUsage has none of /],
      ['anyExtendedKeyUsage', await issue('any', [...SIGNER, 'extendedKeyUsage=anyExtendedKeyUsage,emailProtection']), 'claim_signer', 'extendedKeyUsage contains anyExtendedKeyUsage'],
      ['timeStamping beside emailProtection', await issue('ts-mix', [...SIGNER, 'extendedKeyUsage=timeStamping,emailProtection']), 'claim_signer', 'extendedKeyUsage 1.3.6.1.5.5.7.3.8 is not alone'],
      ['OCSPSigning beside documentSigning', await issue('ocsp-mix', [...SIGNER, 'extendedKeyUsage=OCSPSigning,1.3.6.1.5.5.7.3.36']), 'claim_signer', 'extendedKeyUsage 1.3.6.1.5.5.7.3.9 is not alone'],
      ['timeStamping with OCSPSigning', await issue('ts-ocsp', [...SIGNER, 'extendedKeyUsage=timeStamping,OCSPSigning']), 'claim_signer', ['extendedKeyUsage has both id-kp-timeStamping and id-kp-OCSPSigning', /^extendedKeyUsage has no signing purpose/]],
      ['id-kp-timeStamping alone, as a claim signer', await issue('ts-signer', [...SIGNER, 'extendedKeyUsage=timeStamping']), 'claim_signer', /^extendedKeyUsage has no signing purpose/],
      ['id-kp-OCSPSigning alone, as a claim signer', await issue('ocsp-signer', [...SIGNER, 'extendedKeyUsage=OCSPSigning']), 'claim_signer', /^extendedKeyUsage has no signing purpose/],
      ['CA with anyExtendedKeyUsage', await issue('ca-any', [...CA, 'extendedKeyUsage=anyExtendedKeyUsage']), 'ca', 'extendedKeyUsage contains anyExtendedKeyUsage'],
      // keyUsage, basicConstraints, key identifiers on an end entity
      ['no keyUsage', await issue('no-ku', ['basicConstraints=critical,CA:FALSE', 'authorityKeyIdentifier=keyid', email]), 'claim_signer', 'keyUsage is absent'],
      ['keyUsage nonRepudiation only', await issue('nr', ['keyUsage=critical,nonRepudiation', 'authorityKeyIdentifier=keyid', email]), 'claim_signer', 'keyUsage lacks digitalSignature'],
      ['keyCertSign on a signer', await issue('kcs', ['keyUsage=critical,digitalSignature,keyCertSign', 'authorityKeyIdentifier=keyid', email]), 'claim_signer', 'keyUsage keyCertSign on an end entity'],
      ['signer with cA TRUE', await issue('ee-ca', ['basicConstraints=critical,CA:TRUE', ...SIGNER.slice(1), email]), 'claim_signer', 'an end-entity certificate with basicConstraints cA TRUE'],
      ['signer without AKI', await issue('no-aki', ['keyUsage=critical,digitalSignature', 'authorityKeyIdentifier=none', email]), 'claim_signer', 'authorityKeyIdentifier is absent'],
      ['unknown critical extension', await issue('crit', [...SIGNER, email, '1.2.3.4=critical,DER:05:00']), 'claim_signer', 'unknown critical extension 1.2.3.4'],
      ['critical authorityInfoAccess', await issue('crit-aia', [...SIGNER, email, 'authorityInfoAccess=critical,OCSP;URI:http://ocsp.example.test']), 'claim_signer', 'unknown critical extension 1.3.6.1.5.5.7.1.1'],
      // TSA (time_stamp/verify.rs, RFC 3161 §2.3)
      ['TSA EKU not critical', await issue('tsa-nc', [...SIGNER, 'extendedKeyUsage=timeStamping']), 'tsa', 'extendedKeyUsage is not critical'],
      ['TSA without timeStamping', await issue('tsa-email', [...SIGNER, 'extendedKeyUsage=critical,emailProtection']), 'tsa', 'extendedKeyUsage lacks id-kp-timeStamping'],
      ['TSA with timeStamping beside another', await issue('tsa-mix', [...SIGNER, 'extendedKeyUsage=critical,timeStamping,emailProtection']), 'tsa', 'extendedKeyUsage 1.3.6.1.5.5.7.3.8 is not alone'],
      ['TSA without EKU', await issue('tsa-none', SIGNER), 'tsa', 'extendedKeyUsage is absent'],
      ['TSA with keyUsage keyEncipherment only', await issue('tsa-ke', ['keyUsage=critical,keyEncipherment', 'authorityKeyIdentifier=keyid', 'extendedKeyUsage=critical,timeStamping']), 'tsa', 'keyUsage has neither digitalSignature nor nonRepudiation'],
      // CAs (RFC 5280 as c2pa-rs's OpenSSL chain check enforces it)
      ['CA basicConstraints not critical', await issue('ca-bc', ['basicConstraints=CA:TRUE', ...CA.slice(1)]), 'ca', 'basicConstraints is not critical'],
      ['CA without keyCertSign', await issue('ca-ku', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,cRLSign', ...CA.slice(2)]), 'ca', 'keyUsage lacks keyCertSign'],
      ['CA without keyUsage', await issue('ca-noku', ['basicConstraints=critical,CA:TRUE', ...CA.slice(2)]), 'ca', 'keyUsage is absent'],
      ['CA without SKI', await issue('ca-ski', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign', 'subjectKeyIdentifier=none', 'authorityKeyIdentifier=keyid']), 'ca', 'subjectKeyIdentifier is absent'],
      ['intermediate CA without AKI', await issue('ca-aki', [...CA.slice(0, 3), 'authorityKeyIdentifier=none']), 'ca', 'authorityKeyIdentifier is absent'],
    ];
    const at = (name: string) => (name === 'not yet valid at the signing time' ? { at: new Date(Date.now() - 86_400_000) } : {});
    for (const [name, certificate, kind, problem] of cases) {
      // That rule and no other: each certificate breaks one rule (a version 1 certificate has no extensions at all).
      const problems = c2paProfileProblems(certificate, kind, at(name));
      const expected = Array.isArray(problem) ? problem : [problem];
      expect(problems.length, `${name}: ${problems.join('; ')}`).to.equal(expected.length);
      expected.forEach((e, i) => (typeof e === 'string' ? expect(problems[i], name).to.equal(e) : expect(problems[i], name).to.match(e)));
    }
  });
});
