/**
 * Issuing the service's certificates: root CA -> sub-CA -> leaf signing certificate (C2PA) and
 * time-stamping certificate (TSA). Every certificate is X.509 v3, signed ecdsa-with-SHA384 through the
 * issuer's VaultKey (see tbs-signer.ts); no private key ever leaves the vault.
 *
 * Profiles (all extensions follow RFC 5280; the leaf satisfies c2pa-rs's certificate profile checks):
 *
 * | extension            | root CA              | sub-CA                      | leaf                          | time-stamping                |
 * |----------------------|----------------------|-----------------------------|-------------------------------|------------------------------|
 * | basicConstraints     | critical, CA:TRUE    | critical, CA:TRUE, pathlen 0| critical, CA:FALSE            | critical, CA:FALSE           |
 * | keyUsage             | critical, keyCertSign, cRLSign (+ digitalSignature with `signsOcsp`) | same | critical, digitalSignature | critical, digitalSignature |
 * | extendedKeyUsage     | -                    | -                           | emailProtection               | critical, timeStamping (only)|
 * | subjectKeyIdentifier | SHA-1 of key bits    | same                        | same                          | same                         |
 * | authorityKeyId       | -                    | issuer's SKI                | issuer's SKI                  | issuer's SKI                 |
 * | CRL distribution pt  | -                    | {crlUrl}/sub-ca.crl         | {crlUrl}/leaf.crl             | {crlUrl}/leaf.crl            |
 * | authorityInfoAccess  | -                    | caIssuers {crlUrl}/root-ca.cer | OCSP {ocspUrl}, caIssuers {crlUrl}/sub-ca.cer | same as leaf |
 *
 * The delegated OCSP responder certificate (RFC 6960 4.2.2.2), issued by the sub-CA: basicConstraints critical
 * CA:FALSE, keyUsage critical digitalSignature, EKU critical OCSPSigning (only), id-pkix-ocsp-nocheck (so clients do
 * not ask about the responder's own status: it is short-lived and rotated instead), SKI and AKI; no CRL or AIA.
 *
 * EKU choice: c2pa-rs (sdk/src/crypto/cose/valid_eku_oids.cfg and certificate_profile.rs) accepts a signing
 * certificate whose EKU contains one of: id-kp-emailProtection 1.3.6.1.5.5.7.3.4, id-kp-documentSigning
 * 1.3.6.1.5.5.7.3.36, id-kp-timeStamping 1.3.6.1.5.5.7.3.8, id-kp-OCSPSigning 1.3.6.1.5.5.7.3.9, MS C2PA
 * signing 1.3.6.1.4.1.311.76.59.1.9 and, in the version inside the installed @contentauth/c2pa-wasm, also
 * "C2PA Signing" 1.3.6.1.4.1.62558.2.1. It rejects anyExtendedKeyUsage, and accepts timeStamping / OCSPSigning
 * only alone. It also requires an AKI on the signing certificate and a keyUsage with digitalSignature (without
 * keyCertSign on a non-CA), and fails on unknown critical extensions. emailProtection is accepted by every
 * c2pa-rs version and is also what OpenSSL's `-purpose smimesign` checks.
 */
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AccessDescription,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  BasicConstraints,
  CRLDistributionPoints,
  DistributionPoint,
  DistributionPointName,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ad_caIssuers,
  id_ad_ocsp,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_cRLDistributionPoints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_OCSPSigning,
  id_kp_emailProtection,
  id_kp_timeStamping,
  id_pe_authorityInfoAccess,
} from '@peculiar/asn1-x509';
import { createPublicKey } from 'node:crypto';
import type { VaultKey } from '../vault/types.js';
import { NAME_OIDS, authorityKeyIdFor, keyIdentifierFromSpki, nameFromDer, readCertificate, type CertificateFacts, type CertificateParts } from './certificate.js';
import { bytesEqual, toArrayBuffer } from './der.js';
import { derToPem } from './pem.js';
import { randomSerial } from './serial.js';
import { ecdsaWithSha384Algorithm, p384PublicKey, samePublicKey, signAndAssemble } from './tbs-signer.js';

/** File names under {crlUrl} that the certificates point to (the CRL/CA-certificate host serves these). */
export const PUBLICATION_FILES = {
  rootCertificate: 'root-ca.cer',
  subCaCertificate: 'sub-ca.cer',
  subCaCrl: 'sub-ca.crl',
  leafCrl: 'leaf.crl',
} as const;

/** EKU OIDs c2pa-rs accepts for a signing certificate (valid_eku_oids.cfg of the installed c2pa-wasm). */
export const C2PA_ACCEPTED_EKUS = {
  emailProtection: '1.3.6.1.5.5.7.3.4',
  documentSigning: '1.3.6.1.5.5.7.3.36',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  microsoftC2paSigning: '1.3.6.1.4.1.311.76.59.1.9',
  /** Newer list only (present in c2pa-wasm 0.13 / c2pa-rs 0.91, absent from older c2pa-rs). */
  c2paSigning: '1.3.6.1.4.1.62558.2.1',
} as const;

export class CertificateIssueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateIssueError';
  }
}

export interface SubjectInput {
  /** CN, 1..64 characters. */
  commonName: string;
  /** O, 1..64 characters. */
  organization?: string;
  /** OU, 1..64 characters. */
  organizationalUnit?: string;
  /** C, two letters (ISO 3166), e.g. "US". */
  country?: string;
  /** L, 1..64 characters. */
  locality?: string;
  /** ST, 1..64 characters. */
  state?: string;
}

export interface ValidityInput {
  /** Encoded to whole seconds (milliseconds are dropped). */
  notBefore: Date;
  /** Encoded to whole seconds (milliseconds are dropped). Must be after notBefore. */
  notAfter: Date;
}

export interface IssuerInput {
  /** DER of the issuing CA's certificate. */
  certificateDer: Uint8Array;
  /** The issuing CA's key in the vault; must hold the certificate's public key. */
  key: VaultKey;
}

export interface IssuedCertificate {
  der: Uint8Array;
  pem: string;
  facts: CertificateFacts;
}

export interface RootCaInput extends ValidityInput {
  subject: SubjectInput;
  /** The root's own key: it is both the subject key and the signing key (self-signed). */
  key: VaultKey;
  /** Also assert keyUsage digitalSignature, for a CA that signs OCSP responses itself (CA/B BR 7.1.2). */
  signsOcsp?: boolean;
}

export interface SubCaInput extends ValidityInput {
  subject: SubjectInput;
  /** DER SubjectPublicKeyInfo of the sub-CA key. */
  subjectPublicKeySpki: Uint8Array;
  issuer: IssuerInput;
  /** Base address of the CRL / CA-certificate host, e.g. "https://crl.example.com". */
  crlUrl: string;
  /** Also assert keyUsage digitalSignature, for a CA that signs OCSP responses itself (CA/B BR 7.1.2). */
  signsOcsp?: boolean;
}

export interface EndEntityInput extends ValidityInput {
  subject: SubjectInput;
  /** DER SubjectPublicKeyInfo of the subject key. */
  subjectPublicKeySpki: Uint8Array;
  issuer: IssuerInput;
  crlUrl: string;
  /** Address of the OCSP responder, written as-is into authorityInfoAccess. */
  ocspUrl: string;
}

// ---------------------------------------------------------------------------------------------------------
// Input checks

const MAX_NAME_CHARS = 64; // ub-common-name, ub-organization-name, ub-organizational-unit-name

function checkNameValue(field: string, value: string | undefined, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) throw new CertificateIssueError(`subject ${field} is required`);
    return undefined;
  }
  const v = value.trim();
  if (v.length === 0) throw new CertificateIssueError(`subject ${field} must not be empty`);
  if ([...v].length > MAX_NAME_CHARS) throw new CertificateIssueError(`subject ${field} is longer than ${MAX_NAME_CHARS} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new CertificateIssueError(`subject ${field} contains control characters`);
  return v;
}

/** The subject Name: C, ST, L, O, OU, CN (one attribute per RDN; C as PrintableString, the rest as UTF8String). */
export function buildSubjectName(subject: SubjectInput): Name {
  const cn = checkNameValue('commonName', subject.commonName, true)!;
  const o = checkNameValue('organization', subject.organization, false);
  const ou = checkNameValue('organizationalUnit', subject.organizationalUnit, false);
  const l = checkNameValue('locality', subject.locality, false);
  const st = checkNameValue('state', subject.state, false);
  let c: string | undefined;
  if (subject.country !== undefined) {
    c = subject.country.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(c)) throw new CertificateIssueError('subject country must be two letters');
  }
  const rdn = (type: string, value: AttributeValue) =>
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value })]);
  const rdns: RelativeDistinguishedName[] = [];
  if (c) rdns.push(rdn(NAME_OIDS.country, new AttributeValue({ printableString: c })));
  if (st) rdns.push(rdn(NAME_OIDS.state, new AttributeValue({ utf8String: st })));
  if (l) rdns.push(rdn(NAME_OIDS.locality, new AttributeValue({ utf8String: l })));
  if (o) rdns.push(rdn(NAME_OIDS.organization, new AttributeValue({ utf8String: o })));
  if (ou) rdns.push(rdn(NAME_OIDS.organizationalUnit, new AttributeValue({ utf8String: ou })));
  rdns.push(rdn(NAME_OIDS.commonName, new AttributeValue({ utf8String: cn })));
  return new Name(rdns);
}

function wholeSeconds(d: Date, what: string): Date {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new CertificateIssueError(`${what} is not a valid date`);
  const out = new Date(Math.floor(d.getTime() / 1000) * 1000);
  const year = out.getUTCFullYear();
  // UTCTime covers 1950..2049; GeneralizedTime from 2050 (RFC 5280 section 4.1.2.5). Before 1950 is not supported.
  if (year < 1950 || year > 9999) throw new CertificateIssueError(`${what} must be between the years 1950 and 9999`);
  return out;
}

function checkValidity(v: ValidityInput): { notBefore: Date; notAfter: Date } {
  const notBefore = wholeSeconds(v.notBefore, 'notBefore');
  const notAfter = wholeSeconds(v.notAfter, 'notAfter');
  if (notAfter.getTime() <= notBefore.getTime()) throw new CertificateIssueError('notAfter must be after notBefore (in whole seconds)');
  return { notBefore, notAfter };
}

function checkUrl(what: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CertificateIssueError(`${what} "${raw}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // RFC 5280 / RFC 5019 clients fetch CRLs, CA certificates and OCSP over HTTP; TLS is allowed but unusual.
    throw new CertificateIssueError(`${what} must be an http or https URL`);
  }
  if (url.search || url.hash) throw new CertificateIssueError(`${what} must not contain a query or fragment`);
  // IA5String: plain ASCII only.
  const text = raw.replace(/\/+$/, '');
  // eslint-disable-next-line no-control-regex
  if (!/^[\x21-\x7e]+$/.test(text)) throw new CertificateIssueError(`${what} must be printable ASCII (punycode / percent-encode it)`);
  return text;
}

function checkSubjectSpki(spki: Uint8Array): SubjectPublicKeyInfo {
  try {
    createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch (err) {
    throw new CertificateIssueError(`subject public key is not a valid SubjectPublicKeyInfo: ${(err as Error).message}`);
  }
  const parsed = AsnConvert.parse(spki, SubjectPublicKeyInfo);
  if (!bytesEqual(new Uint8Array(AsnConvert.serialize(parsed)), spki)) {
    throw new CertificateIssueError('subject public key is not DER-encoded');
  }
  return parsed;
}

interface CheckedIssuer {
  parts: CertificateParts;
  key: VaultKey;
}

function checkIssuer(issuer: IssuerInput, issuingCa: boolean, notAfter: Date): CheckedIssuer {
  const parts = readCertificate(issuer.certificateDer);
  const f = parts.facts;
  if (!f.isCa) throw new CertificateIssueError(`issuer "${f.subject}" is not a CA (basicConstraints cA is not TRUE)`);
  if (f.keyUsage.length > 0 && !f.keyUsage.includes('keyCertSign')) {
    throw new CertificateIssueError(`issuer "${f.subject}" keyUsage does not allow keyCertSign`);
  }
  if (issuingCa && f.pathLength === 0) {
    throw new CertificateIssueError(`issuer "${f.subject}" has pathLenConstraint 0 and cannot issue CA certificates`);
  }
  p384PublicKey(issuer.key.publicKeySpki, `issuer vault key "${issuer.key.name}"`);
  if (!samePublicKey(issuer.key.publicKeySpki, parts.spkiDer)) {
    throw new CertificateIssueError(`vault key "${issuer.key.name}" does not hold the public key of issuer "${f.subject}"`);
  }
  if (notAfter.getTime() > f.notAfter.getTime()) {
    throw new CertificateIssueError(
      `notAfter ${notAfter.toISOString()} is after the issuer's notAfter ${f.notAfter.toISOString()}`,
    );
  }
  return { parts, key: issuer.key };
}

// ---------------------------------------------------------------------------------------------------------
// Extensions

function extension(extnID: string, critical: boolean, value: object): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function uri(url: string): GeneralName {
  return new GeneralName({ uniformResourceIdentifier: url });
}

function basicConstraints(ca: boolean, pathLen?: number): Extension {
  const bc = new BasicConstraints({ cA: ca });
  if (pathLen !== undefined) bc.pathLenConstraint = pathLen;
  return extension(id_ce_basicConstraints, true, bc);
}

function keyUsage(flags: number): Extension {
  return extension(id_ce_keyUsage, true, new KeyUsage(flags));
}

function subjectKeyId(spki: Uint8Array): Extension {
  return extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyIdentifierFromSpki(spki)));
}

function authorityKeyId(issuer: CertificateParts): Extension {
  return extension(
    id_ce_authorityKeyIdentifier,
    false,
    new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(authorityKeyIdFor(issuer)) }),
  );
}

function crlDistributionPoint(url: string): Extension {
  return extension(
    id_ce_cRLDistributionPoints,
    false,
    new CRLDistributionPoints([new DistributionPoint({ distributionPoint: new DistributionPointName({ fullName: [uri(url)] }) })]),
  );
}

function authorityInfoAccess(entries: { ocsp?: string; caIssuers?: string }): Extension {
  const list: AccessDescription[] = [];
  if (entries.ocsp) list.push(new AccessDescription({ accessMethod: id_ad_ocsp, accessLocation: uri(entries.ocsp) }));
  if (entries.caIssuers) list.push(new AccessDescription({ accessMethod: id_ad_caIssuers, accessLocation: uri(entries.caIssuers) }));
  return extension(id_pe_authorityInfoAccess, false, new AuthorityInfoAccessSyntax(list));
}

function extendedKeyUsage(oids: string[], critical: boolean): Extension {
  return extension(id_ce_extKeyUsage, critical, new ExtendedKeyUsage(oids));
}

/** id-pkix-ocsp-nocheck (RFC 6960 4.2.2.2.1): its value is NULL. */
export const OCSP_NOCHECK_OID = '1.3.6.1.5.5.7.48.1.5';

function ocspNoCheck(): Extension {
  return new Extension({ extnID: OCSP_NOCHECK_OID, critical: false, extnValue: new OctetString(Uint8Array.of(0x05, 0x00)) });
}

const CA_KEY_USAGE = KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign;

// ---------------------------------------------------------------------------------------------------------
// Issuance

interface TbsInput {
  issuerName: Name;
  subjectName: Name;
  notBefore: Date;
  notAfter: Date;
  spki: SubjectPublicKeyInfo;
  extensions: Extension[];
}

async function issue(signer: VaultKey, input: TbsInput): Promise<IssuedCertificate> {
  const serial = randomSerial();
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: toArrayBuffer(serial.bytes),
    signature: ecdsaWithSha384Algorithm(),
    issuer: input.issuerName,
    validity: new Validity({ notBefore: input.notBefore, notAfter: input.notAfter }),
    subject: input.subjectName,
    subjectPublicKeyInfo: input.spki,
    extensions: new Extensions(input.extensions),
  });
  const der = await signAndAssemble(signer, new Uint8Array(AsnConvert.serialize(tbs)));
  const facts = readCertificate(der).facts;
  return { der, pem: derToPem(der), facts };
}

/** A self-signed root CA certificate for `key`. */
export async function issueRootCa(input: RootCaInput): Promise<IssuedCertificate> {
  const { notBefore, notAfter } = checkValidity(input);
  const spkiDer = input.key.publicKeySpki;
  p384PublicKey(spkiDer, `root vault key "${input.key.name}"`);
  const name = buildSubjectName(input.subject);
  return issue(input.key, {
    issuerName: name,
    subjectName: name,
    notBefore,
    notAfter,
    spki: checkSubjectSpki(spkiDer),
    extensions: [
      basicConstraints(true),
      keyUsage(CA_KEY_USAGE | (input.signsOcsp ? KeyUsageFlags.digitalSignature : 0)),
      subjectKeyId(spkiDer),
    ],
  });
}

/** A sub-CA certificate (pathLenConstraint 0) signed by the root. */
export async function issueSubCa(input: SubCaInput): Promise<IssuedCertificate> {
  const { notBefore, notAfter } = checkValidity(input);
  const crlUrl = checkUrl('crlUrl', input.crlUrl);
  const spki = checkSubjectSpki(input.subjectPublicKeySpki);
  const issuer = checkIssuer(input.issuer, true, notAfter);
  return issue(issuer.key, {
    issuerName: nameFromDer(issuer.parts.subjectNameDer),
    subjectName: buildSubjectName(input.subject),
    notBefore,
    notAfter,
    spki,
    extensions: [
      basicConstraints(true, 0),
      keyUsage(CA_KEY_USAGE | (input.signsOcsp ? KeyUsageFlags.digitalSignature : 0)),
      subjectKeyId(input.subjectPublicKeySpki),
      authorityKeyId(issuer.parts),
      crlDistributionPoint(`${crlUrl}/${PUBLICATION_FILES.subCaCrl}`),
      authorityInfoAccess({ caIssuers: `${crlUrl}/${PUBLICATION_FILES.rootCertificate}` }),
    ],
  });
}

async function issueEndEntity(input: EndEntityInput, eku: Extension, ...more: Extension[]): Promise<IssuedCertificate> {
  const crlUrl = checkUrl('crlUrl', input.crlUrl);
  const ocspUrl = checkUrl('ocspUrl', input.ocspUrl);
  return issueUnderIssuer(input, [eku], [
    authorityInfoAccess({ ocsp: ocspUrl, caIssuers: `${crlUrl}/${PUBLICATION_FILES.subCaCertificate}` }),
    crlDistributionPoint(`${crlUrl}/${PUBLICATION_FILES.leafCrl}`),
    ...more,
  ]);
}

/** A non-CA certificate for signing: `purpose` after the key usage, `pointers` after the key identifiers. */
async function issueUnderIssuer(input: Omit<EndEntityInput, 'crlUrl' | 'ocspUrl'>, purpose: Extension[], pointers: Extension[]): Promise<IssuedCertificate> {
  const { notBefore, notAfter } = checkValidity(input);
  const spki = checkSubjectSpki(input.subjectPublicKeySpki);
  const issuer = checkIssuer(input.issuer, false, notAfter);
  return issue(issuer.key, {
    issuerName: nameFromDer(issuer.parts.subjectNameDer),
    subjectName: buildSubjectName(input.subject),
    notBefore,
    notAfter,
    spki,
    extensions: [
      basicConstraints(false),
      keyUsage(KeyUsageFlags.digitalSignature),
      ...purpose,
      subjectKeyId(input.subjectPublicKeySpki),
      authorityKeyId(issuer.parts),
      ...pointers,
    ],
  });
}

/** The C2PA leaf signing certificate (EKU emailProtection), signed by the sub-CA. */
export async function issueLeafCertificate(input: EndEntityInput): Promise<IssuedCertificate> {
  return issueEndEntity(input, extendedKeyUsage([id_kp_emailProtection], false));
}

/** A time-stamping (TSA) certificate: like the leaf, but EKU timeStamping only, marked critical (RFC 3161 2.3). */
export async function issueTimeStampingCertificate(input: EndEntityInput): Promise<IssuedCertificate> {
  return issueEndEntity(input, extendedKeyUsage([id_kp_timeStamping], true));
}

/**
 * A delegated OCSP responder certificate (RFC 6960 4.2.2.2): issued by the CA whose certificates it answers for, EKU
 * OCSPSigning only (critical) and id-pkix-ocsp-nocheck. c2pa-rs takes a stapled answer only from such a responder
 * (one signed by the CA itself fails its responder profile), and OpenSSL's `ocsp -issuer` accepts it.
 */
export async function issueOcspResponderCertificate(input: Omit<EndEntityInput, 'crlUrl' | 'ocspUrl'>): Promise<IssuedCertificate> {
  return issueUnderIssuer(input, [extendedKeyUsage([id_kp_OCSPSigning], true), ocspNoCheck()], []);
}

/** A person's e-mail address as an rfc822Name: plain ASCII, one @ (IA5String; no internationalised mailbox). */
export function rfc822Name(email: string): GeneralName {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x21-\x7e]+@[\x21-\x7e]+$/.test(email) || email.split('@').length !== 2) throw new CertificateIssueError(`e-mail address "${email}" cannot be written as an rfc822Name`);
  return new GeneralName({ rfc822Name: email });
}

/**
 * A person's CAWG X.509 identity certificate (CAWG identity 1.1 §8.2: the C2PA claim-signer profile, applied to the
 * actor): the leaf's profile (EKU emailProtection, digitalSignature, AKI, CRL and OCSP pointers) with the person's
 * e-mail address in subjectAltName (non-critical: the subject is not empty), signed by the sub-CA.
 */
export async function issueIdentityCertificate(input: EndEntityInput & { email: string }): Promise<IssuedCertificate> {
  const san = extension(id_ce_subjectAltName, false, new SubjectAlternativeName([rfc822Name(input.email)]));
  return issueEndEntity(input, extendedKeyUsage([id_kp_emailProtection], false), san);
}
