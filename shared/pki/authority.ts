/**
 * The service's certificate authority on top of the database: set-up (root -> sub-CA -> leaf), leaf
 * rotation, revocation, listing, and the signing identity the workers use.
 *
 * Issuance runs in one transaction under the issuance advisory lock, with every vault signature inside it:
 * a vault that fails half way rolls everything back (no root without its sub-CA), and two inits started at
 * once issue one chain. Revocation is recorded first, then announced (OCSP responders drop their cached
 * answer), then the affected CRL is issued.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Certificate, CERTIFICATE_ROLES, certificateStatus, type CertificateRole, type CertificateStatus } from '../db/models/certificate.js';
import type { KeyVault, VaultKey } from '../vault/types.js';
import { readCertificate } from './certificate.js';
import { currentCa, currentSigningChain, insertCertificate, newestUsable, type Db } from './certificate-store.js';
import { issueLeafCertificate, issueRootCa, issueSubCa, issueTimeStampingCertificate, type SubjectInput } from './certificate-templates.js';
import { publishCrl, refreshPublications, type CrlOutcome } from './crl-publisher.js';
import { isCrlReason, type CrlReason } from './crl-reasons.js';
import type { PkiEvents } from './pki-events.js';
import { withPkiLock } from './pki-lock.js';
import { normalizeSerialHex } from './serial.js';
import { NoSigningCertificateError, type SigningIdentity } from './signing-identity.js';
import { samePublicKey } from './tbs-signer.js';
import { NoTsaCertificateError } from '../tsa/authority.js';
import type { TsaIdentity } from '../tsa/token.js';

export { NoSigningCertificateError, type SigningIdentity } from './signing-identity.js';

export interface PkiDeps {
  knex: Knex;
  vault: KeyVault;
  config: Pick<Config, 'dataDir' | 'crlUrl' | 'ocspUrl' | 'rootKeyName' | 'subCaKeyName' | 'leafKeyName' | 'tsaKeyName' | 'pki'>;
  /** Where issuance and revocation are announced; required to revoke (OCSP responders must hear of it). */
  events?: PkiEvents;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

export const ROOT_VALIDITY_YEARS = 20;
export const SUB_CA_VALIDITY_YEARS = 10;
/** notBefore is set this far back, so a validator whose clock runs a little behind still accepts a new certificate. */
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A PKI operation that cannot proceed as asked (unknown serial, missing CA, ...): the message says why. */
export class PkiError extends Error {
  constructor(message: string, readonly code: 'not_initialised' | 'not_found' | 'invalid' | 'key_mismatch') {
    super(message);
    this.name = 'PkiError';
  }
}

/** The revocation is recorded, but announcing it or issuing the CRL failed; revoking again retries both. */
export class RevocationFollowUpError extends Error {
  constructor(readonly serial: string, cause: unknown) {
    super(
      `certificate ${serial} is revoked in the database, but notifying the OCSP responders or issuing the CRL failed ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); run the revocation again to retry`,
      { cause },
    );
    this.name = 'RevocationFollowUpError';
  }
}

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

export function holdsKey(cert: Certificate, key: VaultKey): boolean {
  return samePublicKey(readCertificate(cert.der).spkiDer, key.publicKeySpki);
}

/** The newest usable certificate of `role` under `issuerId`, if it is for `key` (else a new one is due). */
async function reusable(db: Db, role: CertificateRole, key: VaultKey, now: Date, issuerId?: string): Promise<Certificate | undefined> {
  const found = await newestUsable(db, role, now, issuerId);
  return found && found.key_name === key.name && holdsKey(found, key) ? found : undefined;
}

/** How each end-entity role is issued: the signing leaf, and the TSA's certificate (EKU timeStamping, critical). */
const END_ENTITY = {
  leaf: { issueCertificate: issueLeafCertificate, commonName: (c: PkiDeps['config']) => c.pki.leafCommonName, noun: 'a leaf', rotated: 'leaf certificate rotated' },
  tsa: { issueCertificate: issueTimeStampingCertificate, commonName: (c: PkiDeps['config']) => c.pki.tsaCommonName, noun: 'a TSA certificate', rotated: 'TSA certificate rotated' },
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
  return insertCertificate(db, { issued, role, issuerId: subCa.id, keyName: key.name, orgId: forOrg?.id });
}

export async function announceIssued(deps: PkiDeps, certificates: readonly Certificate[]): Promise<void> {
  for (const c of certificates) await deps.events?.publish({ kind: 'issued', serial: c.serial, role: c.role });
}

/** How a certificate appears in a log line: who it is, never its DER (a Uint8Array logs as {"0":48,"1":130,...}). */
export interface CertificateLogFields {
  /** Not `role`: that key is the process role bound to child loggers (`logger.child({ role: 'ocsp' })`). */
  certificateRole: CertificateRole;
  serial: string;
  subject: string;
  fingerprintSha256: string;
  notAfter: Date;
}

export function certificateLogFields(c: Pick<Certificate, 'role' | 'serial' | 'subject' | 'fingerprint_sha256' | 'not_after'>): CertificateLogFields {
  return { certificateRole: c.role, serial: c.serial, subject: c.subject, fingerprintSha256: c.fingerprint_sha256, notAfter: c.not_after };
}

export interface InitPkiResult {
  root: Certificate;
  subCa: Certificate;
  leaf: Certificate;
  /** The time-stamping certificate of the service's TSA. */
  tsa: Certificate;
  /** The certificates this run issued (empty when a valid chain existed). */
  issued: Certificate[];
  crls: CrlOutcome[];
}

/**
 * Creates (or reuses) the four vault keys and issues whatever part of root -> sub-CA -> leaf + TSA has no valid
 * certificate for the configured key; then brings the CRLs and CA certificate files up to date.
 * Running it again issues nothing.
 */
export async function initPki(deps: PkiDeps): Promise<InitPkiResult> {
  const { config, vault } = deps;
  const names = [config.rootKeyName, config.subCaKeyName, config.leafKeyName, config.tsaKeyName];
  if (new Set(names).size !== names.length) {
    throw new PkiError('ROOT_KEY_NAME, SUB_CA_KEY_NAME, LEAF_KEY_NAME and TSA_KEY_NAME must name four different keys', 'invalid');
  }
  const [rootKey, subCaKey, leafKey, tsaKey] = (await Promise.all(names.map((n) => vault.ensureKey(n)))) as [VaultKey, VaultKey, VaultKey, VaultKey];

  const chain = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const issued: Certificate[] = [];
    let root = await reusable(trx, 'root', rootKey, now);
    if (!root) {
      const cert = await issueRootCa({
        subject: subject(config, config.pki.rootCommonName),
        key: rootKey,
        signsOcsp: true, // the root answers OCSP for the sub-CA with its own key
        ...validity(now, yearsFrom(now, ROOT_VALIDITY_YEARS)),
      });
      root = await insertCertificate(trx, { issued: cert, role: 'root', issuerId: null, keyName: rootKey.name });
      issued.push(root);
    }
    let subCa = await reusable(trx, 'sub_ca', subCaKey, now, root.id);
    if (!subCa) {
      const cert = await issueSubCa({
        subject: subject(config, config.pki.subCaCommonName),
        subjectPublicKeySpki: subCaKey.publicKeySpki,
        issuer: { certificateDer: root.der, key: rootKey },
        crlUrl: config.crlUrl,
        signsOcsp: true,
        ...validity(now, yearsFrom(now, SUB_CA_VALIDITY_YEARS), root),
      });
      subCa = await insertCertificate(trx, { issued: cert, role: 'sub_ca', issuerId: root.id, keyName: subCaKey.name });
      issued.push(subCa);
    }
    let leaf = await reusable(trx, 'leaf', leafKey, now, subCa.id);
    if (!leaf) {
      leaf = await issueEndEntity(trx, config, 'leaf', subCa, subCaKey, leafKey, now);
      issued.push(leaf);
    }
    let tsa = await reusable(trx, 'tsa', tsaKey, now, subCa.id);
    if (!tsa) {
      tsa = await issueEndEntity(trx, config, 'tsa', subCa, subCaKey, tsaKey, now);
      issued.push(tsa);
    }
    return { root, subCa, leaf, tsa, issued };
  });

  for (const c of chain.issued) deps.logger?.info(certificateLogFields(c), 'certificate issued');
  await announceIssued(deps, chain.issued);
  const { crls } = await refreshPublications(deps, { when: 'stale' });
  return { ...chain, crls };
}

/**
 * Issues a new end-entity certificate of `role` for `keyName` under the current sub-CA; being the newest, it is
 * used from now on. Shared by rotate-leaf and rotate-tsa.
 */
async function rotateEndEntity(deps: PkiDeps, role: 'leaf' | 'tsa', keyName: string): Promise<Certificate> {
  const names = END_ENTITY[role];
  const key = await deps.vault.ensureKey(keyName);
  const issued = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    const subCa = await currentCa(trx, 'sub_ca', now);
    if (!subCa) throw new PkiError(`there is no valid sub-CA to issue ${names.noun}: run \`npm run pki -- init\``, 'not_initialised');
    const subCaKey = await deps.vault.getKey(subCa.key_name);
    if (!holdsKey(subCa, subCaKey)) {
      throw new PkiError(`vault key "${subCa.key_name}" no longer holds the sub-CA's public key: run \`npm run pki -- init\``, 'key_mismatch');
    }
    return issueEndEntity(trx, deps.config, role, subCa, subCaKey, key, now);
  });
  deps.logger?.info(certificateLogFields(issued), names.rotated);
  await announceIssued(deps, [issued]);
  return issued;
}

/** Issues a new leaf under the current sub-CA for LEAF_KEY_NAME; it signs from now on (newest wins). */
export function rotateLeaf(deps: PkiDeps): Promise<Certificate> {
  return rotateEndEntity(deps, 'leaf', deps.config.leafKeyName);
}

/** Issues a new time-stamping certificate for TSA_KEY_NAME under the current sub-CA; the TSA uses it from now on. */
export function rotateTsa(deps: PkiDeps): Promise<Certificate> {
  return rotateEndEntity(deps, 'tsa', deps.config.tsaKeyName);
}

export interface RevocationResult {
  certificate: Certificate;
  /** True when it was revoked before (time and reason of the first revocation are kept). */
  alreadyRevoked: boolean;
  crl: CrlOutcome;
}

/** Which CRL lists a certificate of each role. */
const CRL_OF_ROLE = { sub_ca: 'sub-ca.crl', leaf: 'leaf.crl', tsa: 'leaf.crl' } as const;

/**
 * Revokes a certificate with an RFC 5280 reason, tells every OCSP responder at once and reissues the CRL
 * that lists it. Revoking again repeats the announcement and the CRL (a retry after a failure) without
 * changing the recorded time or reason. A root cannot be revoked: no CRL covers it, it is removed from
 * trust stores instead.
 */
export async function revokeCertificate(
  deps: PkiDeps & { events: PkiEvents },
  serialHex: string,
  reason: CrlReason,
): Promise<RevocationResult> {
  if (!isCrlReason(reason)) throw new PkiError(`unknown revocation reason "${String(reason)}"`, 'invalid');
  if (reason === 'removeFromCRL') throw new PkiError('removeFromCRL is not a reason to revoke (delta CRLs only)', 'invalid');
  let serial: string;
  try {
    serial = normalizeSerialHex(serialHex);
  } catch (err) {
    throw new PkiError((err as Error).message, 'invalid');
  }
  const { certificate, alreadyRevoked } = await deps.knex.transaction(async (trx) => {
    const found = await Certificate.query(trx).findOne({ serial }).forUpdate();
    if (!found) throw new PkiError(`no certificate with serial ${serial} was issued by this service`, 'not_found');
    if (found.role === 'root') throw new PkiError('a root CA cannot be revoked: remove it from trust stores instead', 'invalid');
    if (found.revoked_at) return { certificate: found, alreadyRevoked: true };
    // Whole seconds: what the CRL and OCSP encode, so both report the same time.
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const updated = await Certificate.query(trx).patchAndFetchById(found.id, { revoked_at: revokedAt, revocation_reason: reason });
    // Pre-signed "good" responses go with the revocation (ocsp/response-store.ts), before any copy hears of it.
    await trx('ocsp_responses').where({ serial }).del();
    return { certificate: updated, alreadyRevoked: false };
  });
  deps.logger?.info({ ...certificateLogFields(certificate), reason: certificate.revocation_reason }, 'certificate revoked');
  try {
    // Announce before the CRL: OCSP answers matter most, and they need no vault signature.
    await deps.events.publish({ kind: 'revoked', serial });
    const crl = await publishCrl(deps, CRL_OF_ROLE[certificate.role as Exclude<CertificateRole, 'root'>]);
    return { certificate, alreadyRevoked, crl };
  } catch (err) {
    throw new RevocationFollowUpError(serial, err);
  }
}

export interface CertificateListing {
  role: CertificateRole;
  /** The organisation of an organisation's signing certificate; null for the service's own certificates. */
  org_id: string | null;
  serial: string;
  subject: string;
  issuer: string;
  not_before: Date;
  not_after: Date;
  status: CertificateStatus;
  revoked_at: Date | null;
  revocation_reason: CrlReason | null;
  fingerprint_sha256: string;
  /** The certificate in use for its role: the current root, sub-CA, signing leaf (service's or organisation's) or TSA certificate. */
  current: boolean;
}

/** Every certificate issued (or only `orgId`'s), CAs first, newest first within a role. */
export async function listCertificates(deps: Pick<PkiDeps, 'knex'>, filter: { orgId?: string } = {}): Promise<CertificateListing[]> {
  const now = new Date();
  const query = Certificate.query(deps.knex).orderBy('created_at', 'desc');
  if (filter.orgId) query.where({ org_id: filter.orgId });
  const [rows, root, chain, tsaChain] = await Promise.all([
    query,
    currentCa(deps.knex, 'root', now),
    currentSigningChain(deps.knex, now),
    currentSigningChain(deps.knex, now, 'tsa'),
  ]);
  const current = new Set([root?.id, chain?.subCa.id ?? (await currentCa(deps.knex, 'sub_ca', now))?.id, chain?.leaf.id, tsaChain?.leaf.id]);
  // Each organisation's current certificate: its newest usable leaf (rows are newest first).
  const orgsSeen = new Set<string>();
  for (const c of rows) {
    if (c.org_id && !orgsSeen.has(c.org_id) && certificateStatus(c, now) === 'valid') {
      orgsSeen.add(c.org_id);
      current.add(c.id);
    }
  }
  const order = (r: CertificateRole) => CERTIFICATE_ROLES.indexOf(r);
  return rows
    .sort((a, b) => order(a.role) - order(b.role))
    .map((c) => ({
      role: c.role,
      org_id: c.org_id,
      serial: c.serial,
      subject: c.subject,
      issuer: c.issuer,
      not_before: c.not_before,
      not_after: c.not_after,
      status: certificateStatus(c, now),
      revoked_at: c.revoked_at,
      revocation_reason: c.revocation_reason,
      fingerprint_sha256: c.fingerprint_sha256,
      current: current.has(c.id),
    }));
}

/** Vault keys checked against a leaf certificate, by vault and certificate fingerprint. */
const signingKeys = new WeakMap<KeyVault, Map<string, Promise<VaultKey>>>();
const MAX_CACHED_SIGNING_KEYS = 16;

/** The leaf's vault key, once checked to hold the certificate's public key (then cached: no vault call per job). */
export function signingKeyFor(vault: KeyVault, leaf: Certificate): Promise<VaultKey> {
  let byFingerprint = signingKeys.get(vault);
  if (!byFingerprint) signingKeys.set(vault, (byFingerprint = new Map()));
  let pending = byFingerprint.get(leaf.fingerprint_sha256);
  if (!pending) {
    if (byFingerprint.size >= MAX_CACHED_SIGNING_KEYS) byFingerprint.clear();
    const cache = byFingerprint;
    pending = vault.getKey(leaf.key_name).then((key) => {
      if (!holdsKey(leaf, key)) {
        throw new PkiError(
          `vault key "${leaf.key_name}" does not hold the public key of ${leaf.role} ${leaf.serial}: run \`npm run pki -- ${leaf.role === 'tsa' ? 'rotate-tsa' : 'rotate-leaf'}\``,
          'key_mismatch',
        );
      }
      return key;
    });
    cache.set(leaf.fingerprint_sha256, pending);
    pending.catch(() => cache.delete(leaf.fingerprint_sha256)); // failures are retried on the next job
  }
  return pending;
}

/**
 * The service's own signing identity: the newest valid, unrevoked service leaf (LEAF_KEY_NAME, under a valid,
 * unrevoked sub-CA), its chain [leaf DER, sub-CA DER] and its vault key; throws NoSigningCertificateError when
 * none. Organisations' files are signed with their own certificates (org-signing.ts).
 */
export async function loadSigningIdentity(deps: Pick<PkiDeps, 'knex' | 'vault'> & { config?: unknown }): Promise<SigningIdentity> {
  const chain = await currentSigningChain(deps.knex, new Date());
  if (!chain) throw new NoSigningCertificateError();
  const key = await signingKeyFor(deps.vault, chain.leaf);
  return { key, chainDer: [new Uint8Array(chain.leaf.der), new Uint8Array(chain.subCa.der)], serial: chain.leaf.serial, subject: chain.leaf.subject };
}

/**
 * What the service's TSA signs with: the newest valid, unrevoked time-stamping certificate (under a valid,
 * unrevoked sub-CA), its chain [TSA DER, sub-CA DER] and its vault key (checked against the certificate once,
 * then cached). One query per call; throws NoTsaCertificateError when there is none.
 */
export async function loadTsaIdentity(deps: Pick<PkiDeps, 'knex' | 'vault'>): Promise<TsaIdentity> {
  const chain = await currentSigningChain(deps.knex, new Date(), 'tsa');
  if (!chain) throw new NoTsaCertificateError();
  const key = await signingKeyFor(deps.vault, chain.leaf);
  return {
    key,
    chainDer: [new Uint8Array(chain.leaf.der), new Uint8Array(chain.subCa.der)],
    serial: chain.leaf.serial,
    notBefore: chain.leaf.not_before,
    notAfter: chain.leaf.not_after,
  };
}
