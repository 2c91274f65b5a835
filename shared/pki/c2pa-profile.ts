/**
 * The C2PA certificate profile (C2PA 2.2 §14.5), written once: what a claim signer's certificate, a CA's and a
 * time-stamping authority's must be, so that a validator built on c2pa-rs accepts them. Each rule group below names
 * where it comes from; "c2pa-rs" is contentauth/c2pa-rs:
 *
 * - sdk/src/crypto/cose/certificate_profile.rs, `check_certificate_profile` and `check_end_entity_certificate_profile`:
 *   the profile a validator runs on the claim signer (`signingCredential.invalid` / `.expired` when it fails);
 * - sdk/src/crypto/cose/certificate_trust_policy.rs `has_allowed_eku` with sdk/src/crypto/cose/valid_eku_oids.cfg:
 *   which EKUs count;
 * - sdk/src/crypto/time_stamp/verify.rs: the same end-entity profile run on the TSA's certificate at the token's
 *   genTime, with the EKU list narrowed to id-kp-timeStamping;
 * - sdk/src/crypto/cose/certificate_trust/openssl.rs: the chain check, OpenSSL's verifier with X509_STRICT, which
 *   refuses what RFC 5280 forbids of CAs and any critical extension OpenSSL does not process.
 *
 * c2pa-rs runs the profile on end-entity certificates only; the rules for kind 'ca' are the ones its chain check
 * enforces (RFC 5280, through OpenSSL), so the service CA's own certificates can be judged too.
 */
import { createPublicKey } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { C2PA_ACCEPTED_EKUS } from './certificate-templates.js';
import { readCertificate, type CertificateParts } from './certificate.js';
import { contentBytes, readChildren, readSingle, TAG, tlvBytes } from './der.js';

export type ProfileKind = 'claim_signer' | 'ca' | 'tsa';

// c2pa-rs certificate_profile.rs: the certificate's signature algorithm.
const RSASSA_PSS = '1.2.840.113549.1.1.10';
const SIGNATURE_ALGORITHMS = new Set([
  '1.2.840.10045.4.3.2', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3', // ecdsa-with-SHA384
  '1.2.840.10045.4.3.4', // ecdsa-with-SHA512
  '1.2.840.113549.1.1.11', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12', // sha384WithRSAEncryption
  '1.2.840.113549.1.1.13', // sha512WithRSAEncryption
  RSASSA_PSS,
  '1.3.101.112', // Ed25519
]);
const PSS_HASHES = new Set(['2.16.840.1.101.3.4.2.1', '2.16.840.1.101.3.4.2.2', '2.16.840.1.101.3.4.2.3']); // SHA-256/384/512

// c2pa-rs certificate_profile.rs: the subject's key (EC named curves by OID, RSA modulus length).
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const EC_CURVES: Record<string, string> = { '1.2.840.10045.3.1.7': 'P-256', '1.3.132.0.34': 'P-384', '1.3.132.0.35': 'P-521' };
const MIN_RSA_BITS = 2048;

const EXT = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
} as const;
/**
 * The extensions OpenSSL's verifier processes (crypto/x509/v3_purp.c `X509_supported_extension`, OpenSSL 3.0): c2pa-rs's
 * OpenSSL chain check refuses a certificate with any other extension marked critical ("unhandled critical extension").
 */
const PROCESSED_EXTENSIONS = new Set([
  '2.16.840.1.113730.1.1', // netscape-cert-type
  EXT.keyUsage,
  '2.5.29.17', // subjectAltName
  EXT.basicConstraints,
  '2.5.29.32', // certificatePolicies
  '2.5.29.31', // cRLDistributionPoints
  EXT.extKeyUsage,
  '1.3.6.1.5.5.7.1.7', // sbgp-ipAddrBlock
  '1.3.6.1.5.5.7.1.8', // sbgp-autonomousSysNum
  '2.5.29.36', // policyConstraints
  '1.3.6.1.5.5.7.1.14', // proxyCertInfo
  '2.5.29.30', // nameConstraints
  '2.5.29.33', // policyMappings
  '2.5.29.54', // inhibitAnyPolicy
]);

const ANY_EKU = '2.5.29.37.0';
const OCSP_SIGNING = C2PA_ACCEPTED_EKUS.ocspSigning;
const TIME_STAMPING = C2PA_ACCEPTED_EKUS.timeStamping;
/**
 * The EKUs c2pa-rs accepts on a claim signer: `has_allowed_eku` takes emailProtection, timeStamping and OCSPSigning
 * whatever the configuration, then any OID of valid_eku_oids.cfg (documentSigning, MS C2PA signing, C2PA signing).
 */
export const CLAIM_SIGNER_EKUS: readonly string[] = [
  C2PA_ACCEPTED_EKUS.emailProtection,
  C2PA_ACCEPTED_EKUS.documentSigning,
  TIME_STAMPING,
  OCSP_SIGNING,
  C2PA_ACCEPTED_EKUS.microsoftC2paSigning,
  C2PA_ACCEPTED_EKUS.c2paSigning,
];

/**
 * The EKUs a claim signer must carry one of here: a purpose of signing documents (C2PA 2.2 §14.5.1 names
 * documentSigning and emailProtection; the C2PA and Microsoft C2PA signing OIDs). c2pa-rs's list also takes
 * timeStamping or OCSPSigning alone, but a certificate for those purposes is no organisation's claim signer: the
 * service does not sign with one.
 */
const SIGNING_PURPOSE_EKUS: readonly string[] = [
  C2PA_ACCEPTED_EKUS.emailProtection,
  C2PA_ACCEPTED_EKUS.documentSigning,
  C2PA_ACCEPTED_EKUS.microsoftC2paSigning,
  C2PA_ACCEPTED_EKUS.c2paSigning,
];

/** c2pa-rs certificate_profile.rs: RSASSA-PSS parameters name both hashes, equal, and SHA-256/384/512. */
function pssProblems(parameters: ArrayBuffer | null | undefined): string[] {
  if (!parameters) return ['RSASSA-PSS signature without parameters'];
  let hash: string;
  let mgfHash: string;
  try {
    const der = new Uint8Array(parameters);
    const [hashField, mgfField] = readChildren(der, readSingle(der, TAG.SEQUENCE));
    // Both must be written out, [0] then [1]: the SHA-1 defaults they stand for when absent are not allowed anyway.
    if (hashField?.tag !== 0xa0 || mgfField?.tag !== 0xa1) return ['RSASSA-PSS parameters lack hashAlgorithm or maskGenAlgorithm'];
    const inner = (field: typeof hashField) => AsnConvert.parse(tlvBytes(der, readChildren(der, field)[0]!), AlgorithmIdentifier);
    hash = inner(hashField).algorithm;
    const mgfParameters = inner(mgfField).parameters;
    if (!mgfParameters) return ['RSASSA-PSS maskGenAlgorithm without a hash'];
    mgfHash = AsnConvert.parse(mgfParameters, AlgorithmIdentifier).algorithm;
  } catch {
    return ['RSASSA-PSS parameters cannot be read'];
  }
  if (hash !== mgfHash) return [`RSASSA-PSS mask generation hash ${mgfHash} is not its hash ${hash}`];
  if (!PSS_HASHES.has(hash)) return [`RSASSA-PSS hash ${hash} is not SHA-256, SHA-384 or SHA-512`];
  return [];
}

/** Dotted form of an OBJECT IDENTIFIER's content octets. */
function oidString(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    arcs.push(value);
    value = 0;
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** c2pa-rs certificate_profile.rs: an EC key on a named P-256/384/521 curve, an RSA modulus of 2048 bits or more. */
function keyProblems(parts: CertificateParts): string[] {
  const { algorithm, parameters } = parts.certificate.tbsCertificate.subjectPublicKeyInfo.algorithm;
  if (algorithm === EC_PUBLIC_KEY) {
    let curve: string | undefined;
    try {
      const der = new Uint8Array(parameters ?? new ArrayBuffer(0));
      const tlv = readSingle(der);
      if (tlv.tag === TAG.OID) curve = oidString(contentBytes(der, tlv));
    } catch {
      curve = undefined;
    }
    if (!curve) return ['EC key without a named curve'];
    return EC_CURVES[curve] ? [] : [`EC curve ${curve} is not P-256, P-384 or P-521`];
  }
  if (algorithm === RSA_ENCRYPTION || algorithm === RSASSA_PSS) {
    let bits: number | undefined;
    try {
      bits = createPublicKey({ key: Buffer.from(parts.spkiDer), format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength;
    } catch {
      bits = undefined;
    }
    if (bits === undefined) return ['the RSA key cannot be read'];
    return bits >= MIN_RSA_BITS ? [] : [`RSA key of ${bits} bits is shorter than ${MIN_RSA_BITS}`];
  }
  return [];
}

/** Every rule of the profile the certificate breaks for `kind`, in words; empty when it meets the profile. */
export function c2paProfileProblems(der: Uint8Array | CertificateParts, kind: ProfileKind, options: { at?: Date } = {}): string[] {
  const parts = der instanceof Uint8Array ? readCertificate(der) : der;
  const { certificate, facts } = parts;
  const tbs = certificate.tbsCertificate;
  const problems: string[] = [];
  const extensions = tbs.extensions ?? [];
  const ext = (oid: string) => extensions.find((e) => e.extnID === oid);
  const endEntity = kind !== 'ca';

  // c2pa-rs certificate_profile.rs `check_certificate_profile`: version, validity at the signing time (genTime of
  // the time-stamp, else now; both ends inclusive, as x509-parser's is_valid_at), signature algorithm, key, unique ids.
  if (tbs.version !== 2) problems.push('not an X.509 v3 certificate');
  const at = options.at ?? new Date();
  if (at < facts.notBefore || at > facts.notAfter) problems.push(`not valid at ${at.toISOString()}`);
  const signatureAlgorithm = certificate.signatureAlgorithm;
  if (!SIGNATURE_ALGORITHMS.has(signatureAlgorithm.algorithm)) problems.push(`signature algorithm ${signatureAlgorithm.algorithm} is not allowed`);
  else if (signatureAlgorithm.algorithm === RSASSA_PSS) problems.push(...pssProblems(signatureAlgorithm.parameters));
  problems.push(...keyProblems(parts));
  if (tbs.issuerUniqueID || tbs.subjectUniqueID) problems.push('issuer or subject unique identifiers are present');

  // c2pa-rs certificate_profile.rs: an extendedKeyUsage, when present, has no anyExtendedKeyUsage, an EKU that
  // has_allowed_eku accepts, and timeStamping / OCSPSigning only alone; an end entity must have one.
  const ekuExtension = ext(EXT.extKeyUsage);
  const ekus = new Set(facts.extendedKeyUsage);
  if (ekuExtension) {
    if (ekus.has(ANY_EKU)) problems.push('extendedKeyUsage contains anyExtendedKeyUsage');
    else if (![...ekus].some((e) => CLAIM_SIGNER_EKUS.includes(e))) problems.push(`extendedKeyUsage has none of ${CLAIM_SIGNER_EKUS.join(', ')}`);
    const others = [...ekus].filter((e) => e !== TIME_STAMPING && e !== OCSP_SIGNING && e !== ANY_EKU);
    if (ekus.has(TIME_STAMPING) && ekus.has(OCSP_SIGNING)) problems.push('extendedKeyUsage has both id-kp-timeStamping and id-kp-OCSPSigning');
    else if ((ekus.has(TIME_STAMPING) || ekus.has(OCSP_SIGNING)) && others.length > 0) problems.push(`extendedKeyUsage ${ekus.has(TIME_STAMPING) ? TIME_STAMPING : OCSP_SIGNING} is not alone`);
  } else if (endEntity) {
    problems.push('extendedKeyUsage is absent');
  }

  // c2pa-rs certificate_profile.rs: keyUsage present (its criticality is only a TO DO there, not refused).
  if (!ext(EXT.keyUsage)) problems.push('keyUsage is absent');

  // OpenSSL's verifier in c2pa-rs's chain check (certificate_trust/openssl.rs): no critical extension it does not process.
  for (const e of extensions) if (e.critical && !PROCESSED_EXTENSIONS.has(e.extnID)) problems.push(`unknown critical extension ${e.extnID}`);

  const bc = ext(EXT.basicConstraints);
  if (!endEntity) {
    // RFC 5280 §4.2.1.1/.2/.3/.9, refused by c2pa-rs's OpenSSL chain check (X509_STRICT): a CA has basicConstraints
    // critical with cA TRUE, keyCertSign, a subjectKeyIdentifier, and an authorityKeyIdentifier unless self-issued.
    // c2pa-rs's profile refuses a self-signed CA, but only ever runs on end entities: a root is self-signed by nature.
    if (!bc || !facts.isCa) problems.push('basicConstraints cA is not TRUE');
    else if (!bc.critical) problems.push('basicConstraints is not critical');
    if (ext(EXT.keyUsage) && !facts.keyUsage.includes('keyCertSign')) problems.push('keyUsage lacks keyCertSign');
    if (!ext(EXT.subjectKeyIdentifier)) problems.push('subjectKeyIdentifier is absent');
    if (facts.subject !== facts.issuer && !ext(EXT.authorityKeyIdentifier)) problems.push('authorityKeyIdentifier is absent');
    return problems;
  }

  // c2pa-rs certificate_profile.rs `check_end_entity_certificate_profile`: not a CA, and an authorityKeyIdentifier
  // even when self-issued (aki_good has no exception).
  if (facts.isCa) problems.push('an end-entity certificate with basicConstraints cA TRUE');
  if (!ext(EXT.authorityKeyIdentifier)) problems.push('authorityKeyIdentifier is absent');
  // keyCertSign only with cA (C2PA 2.2 §14.5.1): refused by c2pa-rs's profile beside digitalSignature, and on any
  // non-CA by its OpenSSL chain check. A claim signer asserts digitalSignature (§14.5.1, the manifest's signature);
  // for a TSA c2pa-rs's key_usage_good takes nonRepudiation as well.
  if (kind === 'claim_signer' && ekuExtension && !ekus.has(ANY_EKU) && [...ekus].some((e) => CLAIM_SIGNER_EKUS.includes(e)) && ![...ekus].some((e) => SIGNING_PURPOSE_EKUS.includes(e))) {
    problems.push(`extendedKeyUsage has no signing purpose (one of ${SIGNING_PURPOSE_EKUS.join(', ')})`);
  }
  if (ext(EXT.keyUsage)) {
    if (facts.keyUsage.includes('keyCertSign')) problems.push('keyUsage keyCertSign on an end entity');
    if (kind === 'claim_signer' && !facts.keyUsage.includes('digitalSignature')) problems.push('keyUsage lacks digitalSignature');
    if (kind === 'tsa' && !facts.keyUsage.includes('digitalSignature') && !facts.keyUsage.includes('nonRepudiation')) problems.push('keyUsage has neither digitalSignature nor nonRepudiation');
  }

  // A TSA: c2pa-rs time_stamp/verify.rs narrows the EKU list to id-kp-timeStamping for the TSA's certificate; RFC 3161
  // §2.3 (the tokens C2PA embeds) has that EKU the only one, and critical.
  if (kind === 'tsa' && ekuExtension) {
    if (!ekus.has(TIME_STAMPING)) problems.push('extendedKeyUsage lacks id-kp-timeStamping');
    if (!ekuExtension.critical) problems.push('extendedKeyUsage is not critical');
  }
  return problems;
}
