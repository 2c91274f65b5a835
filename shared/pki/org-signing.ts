/**
 * One signing identity per organisation: a leaf certificate issued by the sub-CA to the organisation's own vault
 * key, with the organisation's name as subject (O and CN), so that a reader of Content Credentials sees which
 * organisation vouches for a file, and revoking one organisation's certificate stops no other.
 *
 * Keys are named from the organisation id and a generation, `org-<id>-<n>`: every certificate of the organisation
 * gets a new key (a rotation after a compromise must not reuse the old one), and an issuance that fails after the
 * vault created its key leaves no row; the next attempt has the same generation and reuses that key, so no
 * half-made keys pile up.
 */
import { countOrgCertificates, currentCa, currentSigningChain, newestOrgLeaf, type Certificate, type Db, type SigningChain } from '../db/repositories/certificates.js';
import { findOrganisation } from '../db/repositories/organisations.js';
import type { AcceptedExternalCertificate } from '../db/repositories/external-certificates.js';
import { recordWebhookEvent } from '../db/repositories/webhooks.js';
import { certificateEventView } from './certificate-view.js';
import { certificateLogFields } from './certificate-log.js';
import { externalCertificateInForce, externalUnusable } from './external-certificates.js';
import type { SubjectInput } from './certificate-templates.js';
import { PkiError } from './errors.js';
import { announceIssued, issueEndEntity, issuingSubCa } from './issuance.js';
import type { PkiDeps } from './pki-deps.js';
import { withPkiLock } from './pki-lock.js';
import { NoSigningCertificateError } from './signing-identity.js';

/** X.520 upper bound of O and CN. */
const NAME_MAX = 64;

export function orgKeyName(orgId: string, generation: number): string {
  return `org-${orgId}-${generation}`;
}

/** O and CN: the organisation's name (control characters dropped, cut to 64 characters); C as configured. */
export function orgSubject(config: PkiDeps['config'], name: string): SubjectInput {
  // eslint-disable-next-line no-control-regex
  const clean = [...name.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()].slice(0, NAME_MAX).join('') || 'Organisation';
  const s: SubjectInput = { commonName: clean, organization: clean };
  if (config.pki.country) s.country = config.pki.country;
  return s;
}

/** Where an organisation stands for signing. */
export type OrgSigningState =
  /** A certificate from an external CA is in force and usable: it signs. */
  | { state: 'external'; certificate: AcceptedExternalCertificate }
  /** The external certificate in force was revoked by its CA or expired: nothing signs until a new chain or a rotation. */
  | { state: 'external_unusable'; certificate: AcceptedExternalCertificate; reason: 'revoked' | 'expired' | 'not_yet_valid' }
  /** A valid, unrevoked certificate under a valid sub-CA: it signs. */
  | { state: 'ready'; chain: SigningChain }
  /** None yet (an organisation from before per-organisation certificates), or the newest expired: the next signature issues one. */
  | { state: 'issuable' }
  /** The newest is revoked: nothing is issued behind the revoker's back; an admin or operator rotates. */
  | { state: 'revoked'; certificate: Certificate }
  /** The PKI has no valid sub-CA to issue from (`npm run pki -- init`). */
  | { state: 'no_ca' };

export async function orgSigningState(db: Db, orgId: string, now = new Date()): Promise<OrgSigningState> {
  const external = await externalCertificateInForce(db, orgId);
  if (external) {
    const reason = externalUnusable(external, now);
    return reason ? { state: 'external_unusable', certificate: external, reason } : { state: 'external', certificate: external };
  }
  const chain = await currentSigningChain(db, now, 'leaf', orgId);
  if (chain) return { state: 'ready', chain };
  if (!(await currentCa(db, 'sub_ca', now))) return { state: 'no_ca' };
  const newest = await newestOrgLeaf(db, orgId);
  if (newest?.revoked_at) return { state: 'revoked', certificate: newest };
  return { state: 'issuable' };
}

/** Why an organisation cannot sign now, in words for its users and logs. */
export function noCertificateError(state: Exclude<OrgSigningState, { state: 'ready' | 'issuable' | 'external' }>): NoSigningCertificateError {
  if (state.state === 'external_unusable') return externalUnusableError(state.certificate, state.reason);
  return state.state === 'revoked'
    ? new NoSigningCertificateError(`the organisation's signing certificate ${state.certificate.serial} is revoked: an admin must rotate it (POST /org/signing-certificate/rotate)`)
    : new NoSigningCertificateError('the service has no valid issuing CA: an operator must run `npm run pki -- init`');
}

/** No fallback to another certificate: the organisation chose to sign as its CA certified it. */
export function externalUnusableError(c: AcceptedExternalCertificate, reason: 'revoked' | 'expired' | 'not_yet_valid'): NoSigningCertificateError {
  const what = reason === 'revoked' ? `was revoked by its CA (${c.revocation_reason}, recorded ${c.revocation_recorded_at?.toISOString()})` : reason === 'expired' ? `expired on ${c.not_after.toISOString()}` : `is not valid before ${c.not_before.toISOString()}`;
  return new NoSigningCertificateError(
    `the organisation's signing certificate ${c.serial} from ${c.certificate_issuer} ${what}: an admin must accept a new chain (POST /org/signing-certificate/requests) or rotate to the service CA (POST /org/signing-certificate/rotate)`,
  );
}

/**
 * Issues the organisation a certificate under the issuance lock. `missing`: only when it has none it may sign with
 * (concurrent first jobs issue one between them); `rotate`: always a new one, with a new key.
 */
async function issueForOrg(deps: PkiDeps, orgId: string, mode: 'missing' | 'rotate'): Promise<Certificate> {
  const org = await findOrganisation(orgId, deps.knex);
  if (!org) throw new PkiError(`no organisation ${orgId}`, 'not_found');
  const { certificate, fresh } = await withPkiLock(deps.knex, 'issuance', async (trx) => {
    const now = new Date();
    if (mode === 'missing') {
      const st = await orgSigningState(trx, orgId, now);
      if (st.state === 'ready') return { certificate: st.chain.leaf, fresh: false };
      if (st.state === 'revoked' || st.state === 'external_unusable') throw noCertificateError(st);
      // An external certificate signs: nothing to issue (an ensure request from before it was accepted).
      if (st.state === 'external') throw new NoSigningCertificateError("the organisation signs with its external CA's certificate: the service CA issues it none unless an admin rotates");
    }
    const { subCa, subCaKey } = await issuingSubCa(trx, deps.vault, 'an organisation certificate', now);
    const key = await deps.vault.ensureKey(orgKeyName(orgId, (await countOrgCertificates(trx, orgId)) + 1));
    const issued = await issueEndEntity(trx, deps.config, 'leaf', subCa, subCaKey, key, now, { id: orgId, subject: orgSubject(deps.config, org.name) });
    await recordWebhookEvent(trx, { orgId, type: mode === 'rotate' ? 'signing_certificate.rotated' : 'signing_certificate.issued', data: certificateEventView(issued, now) });
    return { certificate: issued, fresh: true };
  });
  if (fresh) {
    deps.logger?.info({ ...certificateLogFields(certificate), orgId }, mode === 'rotate' ? 'organisation certificate rotated' : 'organisation certificate issued');
    await announceIssued(deps, [certificate]);
  }
  return certificate;
}

/** The organisation's current certificate, issuing one when it has none it may sign with (see OrgSigningState). */
export function ensureOrgCertificate(deps: PkiDeps, orgId: string): Promise<Certificate> {
  return issueForOrg(deps, orgId, 'missing');
}

/** A new certificate and key for the organisation; being the newest, it signs from now on. The previous one stays valid until it expires or is revoked. */
export function rotateOrgCertificate(deps: PkiDeps, orgId: string): Promise<Certificate> {
  return issueForOrg(deps, orgId, 'rotate');
}
