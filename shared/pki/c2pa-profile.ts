/**
 * The C2PA certificate profile (C2PA 2.2 §14.5), written once: what a claim signer's certificate, a CA's and a
 * time-stamping authority's must be. The rules mirror c2pa-rs's certificate profile check (a validator refuses a
 * claim signer that breaks them, `signingCredential.invalid`), so a chain accepted here is one c2pa-rs signs with:
 *
 * - every certificate: X.509 v3; signed ECDSA (SHA-256/384/512), RSA PKCS#1 v1.5 or PSS (SHA-256/384/512) or Ed25519;
 *   key EC P-256/P-384/P-521, RSA of 2048 bits or more, or Ed25519; no issuer/subject unique ids; notBefore before
 *   notAfter (and, when a time is given, inside the window); keyUsage present and critical; an authorityKeyIdentifier
 *   unless self-issued; no critical extension the profile does not know.
 * - a CA: basicConstraints critical with cA TRUE, keyUsage keyCertSign, a subjectKeyIdentifier.
 * - an end entity (claim signer, TSA): basicConstraints, when present, cA FALSE; keyUsage digitalSignature and no
 *   keyCertSign; an extendedKeyUsage without anyExtendedKeyUsage; id-kp-timeStamping and id-kp-OCSPSigning only alone.
 * - a claim signer: its EKU contains id-kp-documentSigning, id-kp-emailProtection or the C2PA claim-signing OID.
 * - a TSA: its EKU is id-kp-timeStamping only, and critical (RFC 3161 §2.3).
 */
import { createPublicKey } from 'node:crypto';
import { C2PA_ACCEPTED_EKUS } from './certificate-templates.js';
import { readCertificate, type CertificateParts } from './certificate.js';

export type ProfileKind = 'claim_signer' | 'ca' | 'tsa';

const SIGNATURE_ALGORITHMS = new Set([
  '1.2.840.10045.4.3.2', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3', // ecdsa-with-SHA384
  '1.2.840.10045.4.3.4', // ecdsa-with-SHA512
  '1.2.840.113549.1.1.11', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12', // sha384WithRSAEncryption
  '1.2.840.113549.1.1.13', // sha512WithRSAEncryption
  '1.2.840.113549.1.1.10', // RSASSA-PSS
  '1.3.101.112', // Ed25519
]);
const EC_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);
const MIN_RSA_BITS = 2048;

const EXT = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
} as const;
/** Extensions a certificate may mark critical under the profile (RFC 5280 ones a validator processes). */
const KNOWN_CRITICAL = new Set([EXT.basicConstraints, EXT.keyUsage, EXT.extKeyUsage, '2.5.29.30' /* nameConstraints */, '2.5.29.36' /* policyConstraints */, '2.5.29.32' /* certificatePolicies */, '2.5.29.17' /* subjectAltName */]);
const ANY_EKU = '2.5.29.37.0';
const OCSP_SIGNING = C2PA_ACCEPTED_EKUS.ocspSigning;
const TIME_STAMPING = C2PA_ACCEPTED_EKUS.timeStamping;
/** C2PA 2.2 §14.5.1: the EKUs that make a claim signer. */
export const CLAIM_SIGNER_EKUS: readonly string[] = [C2PA_ACCEPTED_EKUS.documentSigning, C2PA_ACCEPTED_EKUS.emailProtection, C2PA_ACCEPTED_EKUS.c2paSigning];

function keyProblems(spkiDer: Uint8Array): string[] {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' });
  } catch {
    return ['the public key cannot be read'];
  }
  const d = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'ec') return EC_CURVES.has(d?.namedCurve ?? '') ? [] : [`EC curve ${d?.namedCurve ?? 'unknown'} is not P-256, P-384 or P-521`];
  if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') return (d?.modulusLength ?? 0) >= MIN_RSA_BITS ? [] : [`RSA key of ${d?.modulusLength} bits is shorter than ${MIN_RSA_BITS}`];
  if (key.asymmetricKeyType === 'ed25519') return [];
  return [`${key.asymmetricKeyType} keys are not allowed`];
}

/** Every rule of the profile `certificate` breaks for `kind`, in words; empty when it meets the profile. */
export function c2paProfileProblems(der: Uint8Array | CertificateParts, kind: ProfileKind, options: { at?: Date } = {}): string[] {
  const parts = der instanceof Uint8Array ? readCertificate(der) : der;
  const { certificate, facts } = parts;
  const tbs = certificate.tbsCertificate;
  const problems: string[] = [];
  const extensions = tbs.extensions ?? [];
  const ext = (oid: string) => extensions.find((e) => e.extnID === oid);

  if (tbs.version !== 2) problems.push('not an X.509 v3 certificate');
  if (!SIGNATURE_ALGORITHMS.has(certificate.signatureAlgorithm.algorithm)) problems.push(`signature algorithm ${certificate.signatureAlgorithm.algorithm} is not allowed`);
  problems.push(...keyProblems(parts.spkiDer));
  if (tbs.issuerUniqueID || tbs.subjectUniqueID) problems.push('issuer or subject unique identifiers are present');
  if (facts.notBefore.getTime() >= facts.notAfter.getTime()) problems.push('notBefore is not before notAfter');
  if (options.at && (options.at < facts.notBefore || options.at >= facts.notAfter)) problems.push(`not valid at ${options.at.toISOString()}`);
  const keyUsage = ext(EXT.keyUsage);
  if (!keyUsage) problems.push('keyUsage is absent');
  else if (!keyUsage.critical) problems.push('keyUsage is not critical');
  const selfIssued = facts.subject === facts.issuer;
  if (!selfIssued && !facts.authorityKeyIdHex) problems.push('authorityKeyIdentifier is absent');
  for (const e of extensions) if (e.critical && !KNOWN_CRITICAL.has(e.extnID as never)) problems.push(`unknown critical extension ${e.extnID}`);

  const bc = ext(EXT.basicConstraints);
  if (kind === 'ca') {
    if (!bc || !facts.isCa) problems.push('basicConstraints cA is not TRUE');
    else if (!bc.critical) problems.push('basicConstraints is not critical');
    if (!facts.keyUsage.includes('keyCertSign')) problems.push('keyUsage lacks keyCertSign');
    if (!facts.subjectKeyIdHex) problems.push('subjectKeyIdentifier is absent');
    return problems;
  }

  if (facts.isCa) problems.push('an end-entity certificate with basicConstraints cA TRUE');
  if (!facts.keyUsage.includes('digitalSignature')) problems.push('keyUsage lacks digitalSignature');
  if (facts.keyUsage.includes('keyCertSign')) problems.push('keyUsage keyCertSign on an end entity');
  const ekus = facts.extendedKeyUsage;
  if (!ext(EXT.extKeyUsage)) {
    problems.push('extendedKeyUsage is absent');
    return problems;
  }
  if (ekus.includes(ANY_EKU)) problems.push('extendedKeyUsage contains anyExtendedKeyUsage');
  for (const alone of [TIME_STAMPING, OCSP_SIGNING]) if (ekus.includes(alone) && ekus.length > 1) problems.push(`extendedKeyUsage ${alone} is not alone`);
  if (kind === 'claim_signer') {
    if (!ekus.some((e) => CLAIM_SIGNER_EKUS.includes(e))) problems.push('extendedKeyUsage has none of id-kp-documentSigning, id-kp-emailProtection, C2PA claim signing');
    if (ekus.includes(TIME_STAMPING) || ekus.includes(OCSP_SIGNING)) problems.push('a claim signer with id-kp-timeStamping or id-kp-OCSPSigning');
  } else {
    if (!ekus.includes(TIME_STAMPING)) problems.push('extendedKeyUsage lacks id-kp-timeStamping');
    if (!ext(EXT.extKeyUsage)!.critical) problems.push('extendedKeyUsage is not critical');
  }
  return problems;
}
