/** The certificate authority: the vault and its key names, the certificates' subjects and lifetimes, CRLs and OCSP. */
import { ConfigError, int, oneOf, optional, str, url, type Env } from './parse.js';

export interface PkiSubjectConfig {
  /** O of every certificate (PKI_ORGANISATION). */
  organisation: string;
  /** C of every certificate, two letters (PKI_COUNTRY); none when unset. */
  country: string | undefined;
  rootCommonName: string;
  subCaCommonName: string;
  leafCommonName: string;
  /** CN of the time-stamping (TSA) certificate (PKI_TSA_CN). */
  tsaCommonName: string;
  /** Lifetime of a leaf signing certificate in days (LEAF_VALIDITY_DAYS). */
  leafValidityDays: number;
  /** CN of the OCSP responder certificate (PKI_OCSP_CN). */
  ocspCommonName: string;
  /**
   * Lifetime of the delegated OCSP responder certificate in days (OCSP_RESPONDER_VALIDITY_DAYS); the scheduler issues
   * the next one when a third of it is left.
   */
  ocspResponderValidityDays: number;
  /**
   * Lifetime of a person's identity certificate in days (IDENTITY_VALIDITY_DAYS). c2pa-rs judges an identity
   * assertion's certificate at reading time, timestamp or not: once it expires, files it signed read untrusted.
   */
  identityValidityDays: number;
}

export interface PkiSettings {
  /** Azure Key Vault address; undefined selects the local vault in dataDir. */
  cloudVaultUrl: string | undefined;
  leafKeyName: string;
  subCaKeyName: string;
  rootKeyName: string;
  /** Name of the TSA's signing key in the vault. */
  tsaKeyName: string;
  /** Name of the delegated OCSP responder's key in the vault (OCSP_KEY_NAME). */
  ocspKeyName: string;
  /** Subjects and leaf lifetime of the certificates `npm run pki -- init` / rotate-leaf issue. */
  pki: PkiSubjectConfig;
  crlSchedule: string;
  /** What the OCSP responder answers for serials the service never issued (spec: good). */
  ocspUnissuedStatus: 'good' | 'unknown';
  /**
   * Front processes answering on OCSP_PORT (ocsp/fronts.ts, node:cluster); 0: the role's own process answers.
   * Default 1.
   */
  ocspProcesses: number;
  /** Certificate requests to external CAs one organisation may have open (MAX_PENDING_CERTIFICATE_REQUESTS): each makes a vault key. */
  maxPendingCertificateRequests: number;
}

export function pkiSettings(env: Env): PkiSettings {
  return {
    cloudVaultUrl: url(env, 'CLOUD_VAULT_URL', undefined, ['https:']),
    leafKeyName: str(env, 'LEAF_KEY_NAME', 'leaf-signing'),
    subCaKeyName: str(env, 'SUB_CA_KEY_NAME', 'sub-ca'),
    rootKeyName: str(env, 'ROOT_KEY_NAME', 'root-ca'),
    tsaKeyName: str(env, 'TSA_KEY_NAME', 'tsa-signing'),
    ocspKeyName: str(env, 'OCSP_KEY_NAME', 'ocsp-responder'),
    pki: pkiSubjects(env),
    crlSchedule: str(env, 'CRL_SCHEDULE', '0 3 * * 1'),
    ocspUnissuedStatus: oneOf(env, 'OCSP_UNISSUED_STATUS', 'good', ['good', 'unknown'] as const),
    ocspProcesses: int(env, 'OCSP_PROCESSES', 1, 0, 64),
    maxPendingCertificateRequests: int(env, 'MAX_PENDING_CERTIFICATE_REQUESTS', 5, 1, 1000),
  };
}

/** X.509 name attributes: 1-64 characters (RFC 5280 upper bounds), no control characters. */
function subjectName(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback).trim();
  // eslint-disable-next-line no-control-regex
  if (v.length === 0 || [...v].length > 64 || /[\u0000-\u001f\u007f]/.test(v)) {
    throw new ConfigError(name, `must be 1-64 characters without control characters, got "${v}"`);
  }
  return v;
}

function pkiSubjects(env: Env): PkiSubjectConfig {
  const organisation = subjectName(env, 'PKI_ORGANISATION', 'Media Signing Service');
  const country = optional(env, 'PKI_COUNTRY')?.toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) throw new ConfigError('PKI_COUNTRY', `must be two letters (ISO 3166), got "${country}"`);
  return {
    organisation,
    country,
    rootCommonName: subjectName(env, 'PKI_ROOT_CN', `${organisation} Root CA`),
    subCaCommonName: subjectName(env, 'PKI_SUB_CA_CN', `${organisation} Issuing CA`),
    leafCommonName: subjectName(env, 'PKI_LEAF_CN', `${organisation} C2PA Signing`),
    tsaCommonName: subjectName(env, 'PKI_TSA_CN', `${organisation} Time Stamping`),
    leafValidityDays: int(env, 'LEAF_VALIDITY_DAYS', 365, 1, 3650),
    ocspCommonName: subjectName(env, 'PKI_OCSP_CN', `${organisation} OCSP Responder`),
    ocspResponderValidityDays: int(env, 'OCSP_RESPONDER_VALIDITY_DAYS', 30, 9, 365),
    identityValidityDays: int(env, 'IDENTITY_VALIDITY_DAYS', 1095, 1, 3650),
  };
}
