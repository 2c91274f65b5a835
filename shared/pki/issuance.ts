/**
 * Issuing one certificate of a role under its CA and recording it: the subject and validity the service gives each
 * role, the check that a vault key still holds a CA's public key, and the announcement of what was issued. Callers
 * hold the issuance lock (pki-lock.ts) and pass its transaction.
 */
import { currentCa, insertCertificate, type Certificate, type CertificateRole, type Db } from '../db/repositories/certificates.js';
import type { KeyVault, VaultKey } from '../vault/types.js';
import {
  issueLeafCertificate,
  issueOcspResponderCertificate,
  issueRootCa,
  issueSubCa,
  issueTimeStampingCertificate,
  type IssuedCertificate,
  type SubjectInput,
} from './certificate-templates.js';
import { PkiError } from './errors.js';
import type { PkiDeps } from './pki-deps.js';
import { holdsKey } from './signing-keys.js';

const ROOT_VALIDITY_YEARS = 20;
const SUB_CA_VALIDITY_YEARS = 10;
/** notBefore is set this far back, so a validator whose clock runs a little behind still accepts a new certificate. */
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function yearsFrom(date: Date, years: number): Date {
  const d = new Date(date);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
}

/** A child may not outlive its issuer (RFC 5280 practice; the templates refuse it). */
function validity(now: Date, notAfter: Date, issuer?: Certificate): { notBefore: Date; notAfter: Date } {
  const capped = issuer && issuer.not_after.getTime() < notAfter.getTime() ? issuer.not_after : notAfter;
  return { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: capped };
}

function subject(config: PkiDeps['config'], commonName: string): SubjectInput {
  const s: SubjectInput = { commonName, organization: config.pki.organisation };
  if (config.pki.country) s.country = config.pki.country;
  return s;
}

function record(
  db: Db,
  issued: IssuedCertificate,
  row: { role: CertificateRole; issuerId: string | null; keyName: string; orgId?: string },
): Promise<Certificate> {
  const f = issued.facts;
  return insertCertificate(db, {
    ...row,
    serial: f.serialHex,
    subject: f.subject,
    issuer: f.issuer,
    notBefore: f.notBefore,
    notAfter: f.notAfter,
    der: issued.der,
    fingerprintSha256: f.fingerprintSha256,
  });
}

/** A self-signed root for `key`. */
export async function issueRoot(db: Db, config: PkiDeps['config'], key: VaultKey, now: Date): Promise<Certificate> {
  const cert = await issueRootCa({
    subject: subject(config, config.pki.rootCommonName),
    key,
    signsOcsp: true, // the root answers OCSP for the sub-CA with its own key
    ...validity(now, yearsFrom(now, ROOT_VALIDITY_YEARS)),
  });
  return record(db, cert, { role: 'root', issuerId: null, keyName: key.name });
}

/** A sub-CA for `key` under `root`. */
export async function issueSubCaUnder(db: Db, config: PkiDeps['config'], root: Certificate, rootKey: VaultKey, key: VaultKey, now: Date): Promise<Certificate> {
  const cert = await issueSubCa({
    subject: subject(config, config.pki.subCaCommonName),
    subjectPublicKeySpki: key.publicKeySpki,
    issuer: { certificateDer: root.der, key: rootKey },
    crlUrl: config.crlUrl,
    signsOcsp: true,
    ...validity(now, yearsFrom(now, SUB_CA_VALIDITY_YEARS), root),
  });
  return record(db, cert, { role: 'sub_ca', issuerId: root.id, keyName: key.name });
}

/** How each end-entity role is issued: the signing leaf, and the TSA's certificate (EKU timeStamping, critical). */
const END_ENTITY = {
  leaf: { issueCertificate: issueLeafCertificate, commonName: (c: PkiDeps['config']) => c.pki.leafCommonName },
  tsa: { issueCertificate: issueTimeStampingCertificate, commonName: (c: PkiDeps['config']) => c.pki.tsaCommonName },
} as const;

/**
 * A leaf or TSA certificate for `key` under the sub-CA; both have the leaf's profile and lifetime. `forOrg`: an
 * organisation's own signing certificate, with its name as subject.
 */
export async function issueEndEntity(
  db: Db,
  config: PkiDeps['config'],
  role: 'leaf' | 'tsa',
  subCa: Certificate,
  subCaKey: VaultKey,
  key: VaultKey,
  now: Date,
  forOrg?: { id: string; subject: SubjectInput },
): Promise<Certificate> {
  const issued = await END_ENTITY[role].issueCertificate({
    subject: forOrg?.subject ?? subject(config, END_ENTITY[role].commonName(config)),
    subjectPublicKeySpki: key.publicKeySpki,
    issuer: { certificateDer: subCa.der, key: subCaKey },
    crlUrl: config.crlUrl,
    ocspUrl: config.ocspUrl,
    ...validity(now, new Date(now.getTime() + config.pki.leafValidityDays * DAY_MS), subCa),
  });
  return record(db, issued, { role, issuerId: subCa.id, keyName: key.name, orgId: forOrg?.id });
}

/** A delegated OCSP responder certificate for `key` under the sub-CA (OCSP_RESPONDER_VALIDITY_DAYS). */
export async function issueOcspResponder(db: Db, config: PkiDeps['config'], subCa: Certificate, subCaKey: VaultKey, key: VaultKey, now: Date): Promise<Certificate> {
  const issued = await issueOcspResponderCertificate({
    subject: subject(config, config.pki.ocspCommonName),
    subjectPublicKeySpki: key.publicKeySpki,
    issuer: { certificateDer: subCa.der, key: subCaKey },
    ...validity(now, new Date(now.getTime() + config.pki.ocspResponderValidityDays * DAY_MS), subCa),
  });
  return record(db, issued, { role: 'ocsp', issuerId: subCa.id, keyName: key.name });
}

/** The current sub-CA and its vault key, to issue `noun` (e.g. "a leaf") with; a PkiError when there is none usable. */
export async function issuingSubCa(db: Db, vault: KeyVault, noun: string, now: Date): Promise<{ subCa: Certificate; subCaKey: VaultKey }> {
  const subCa = await currentCa(db, 'sub_ca', now);
  if (!subCa) throw new PkiError(`there is no valid sub-CA to issue ${noun}: run \`npm run pki -- init\``, 'not_initialised');
  const subCaKey = await vault.getKey(subCa.key_name);
  if (!holdsKey(subCa, subCaKey)) {
    throw new PkiError(`vault key "${subCa.key_name}" no longer holds the sub-CA's public key: run \`npm run pki -- init\``, 'key_mismatch');
  }
  return { subCa, subCaKey };
}

export async function announceIssued(deps: Pick<PkiDeps, 'events'>, certificates: readonly Certificate[]): Promise<void> {
  for (const c of certificates) await deps.events?.publish({ kind: 'issued', serial: c.serial, role: c.role });
}
