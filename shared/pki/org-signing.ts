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
import { recordWebhookEvent } from '../db/repositories/webhooks.js';
import { certificateEventView } from './certificate-view.js';
import { certificateLogFields } from './certificate-log.js';
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
  /** A valid, unrevoked certificate under a valid sub-CA: it signs. */
  | { state: 'ready'; chain: SigningChain }
  /** None yet (an organisation from before per-organisation certificates), or the newest expired: the next signature issues one. */
  | { state: 'issuable' }
  /** The newest is revoked: nothing is issued behind the revoker's back; an admin or operator rotates. */
  | { state: 'revoked'; certificate: Certificate }
  /** The PKI has no valid sub-CA to issue from (`npm run pki -- init`). */
  | { state: 'no_ca' };

export async function orgSigningState(db: Db, orgId: string, now = new Date()): Promise<OrgSigningState> {
  const chain = await currentSigningChain(db, now, 'leaf', orgId);
  if (chain) return { state: 'ready', chain };
  if (!(await currentCa(db, 'sub_ca', now))) return { state: 'no_ca' };
  const newest = await newestOrgLeaf(db, orgId);
  if (newest?.revoked_at) return { state: 'revoked', certificate: newest };
  return { state: 'issuable' };
}

/** Why an organisation cannot sign now, in words for its users and logs. */
export function noCertificateError(state: Exclude<OrgSigningState, { state: 'ready' | 'issuable' }>): NoSigningCertificateError {
  return state.state === 'revoked'
    ? new NoSigningCertificateError(`the organisation's signing certificate ${state.certificate.serial} is revoked: an admin must rotate it (POST /org/signing-certificate/rotate)`)
    : new NoSigningCertificateError('the service has no valid issuing CA: an operator must run `npm run pki -- init`');
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
      if (st.state === 'revoked') throw noCertificateError(st);
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
