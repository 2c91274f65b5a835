/**
 * Organisations' signing certificates as the web role shows them, and what it asks of the issuer: a new one is
 * requested through the one door (shared/pki/certificate-requests.ts) and issued by the scheduler, which holds the
 * CA keys; this role never signs with them.
 */
import type { Knex } from 'knex';
import { certificateStatus, currentCa, currentSigningChain, findCertificateById, orgLeafCertificates, type Certificate, type SigningChain } from '../../shared/db/repositories/certificates.js';
import { ISSUANCE_WAIT_MS, obtainOrgCertificate, type CertificateRequestOutcome } from '../../shared/pki/certificate-requests.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { certificateView } from '../../shared/pki/certificate-view.js';

/** A signing chain as the API shows it: the leaf's facts, PEMs of leaf and sub-CA, and the root (the trust anchor). */
async function signingChainView(knex: Knex, chain: SigningChain) {
  const root = chain.subCa.issuer_id ? await findCertificateById(knex, chain.subCa.issuer_id) : undefined;
  const leaf = certificateView(chain.leaf);
  const subCa = certificateView(chain.subCa);
  return {
    serial: leaf.serial,
    subject: leaf.subject,
    issuer: leaf.issuer,
    not_before: leaf.not_before,
    not_after: leaf.not_after,
    fingerprint_sha256: leaf.fingerprint_sha256,
    certificate_pem: leaf.pem,
    chain_pem: leaf.pem + subCa.pem,
    chain: [leaf, subCa],
    root: root ? certificateView(root) : null,
  };
}

export type SigningCertificateView = Awaited<ReturnType<typeof signingChainView>>;

/** The organisation's current signing certificate with its chain; undefined when it has none it may sign with. */
export async function currentOrgSigningCertificate(knex: Knex, orgId: string): Promise<SigningCertificateView | undefined> {
  const chain = await currentSigningChain(knex, new Date(), 'leaf', orgId);
  return chain && signingChainView(knex, chain);
}

/** Words for the organisation's state, as the API names it. */
const STATE = { ready: 'valid', issuable: 'not_issued', revoked: 'revoked', no_ca: 'no_issuing_ca' } as const;
/** How many of an organisation's past certificates are listed. */
const HISTORY_LIMIT = 100;

/** Where the organisation stands for signing, its current certificate and the ones it had (newest first). */
export async function orgSigningCertificateStatus(knex: Knex, orgId: string) {
  const [state, rows] = await Promise.all([orgSigningState(knex, orgId), orgLeafCertificates(knex, orgId, HISTORY_LIMIT)]);
  return {
    status: STATE[state.state],
    current: state.state === 'ready' ? await signingChainView(knex, state.chain) : null,
    certificates: rows.map((c) => ({
      serial: c.serial,
      subject: c.subject,
      not_before: c.not_before.toISOString(),
      not_after: c.not_after.toISOString(),
      status: certificateStatus(c),
      revoked_at: c.revoked_at?.toISOString() ?? null,
      revocation_reason: c.revocation_reason,
    })),
  };
}

export type RotationOutcome =
  | { status: 'issued'; certificate: SigningCertificateView }
  /** Issued, but not usable for signing (no valid sub-CA above it any more). */
  | { status: 'unusable' }
  | Exclude<CertificateRequestOutcome, { status: 'done' }>;

/** Asks the scheduler for a new certificate and key for the organisation and waits for it, bounded. */
export async function rotateOrgSigningCertificate(knex: Knex, orgId: string): Promise<RotationOutcome> {
  const outcome = await obtainOrgCertificate(knex, orgId, 'rotate', ISSUANCE_WAIT_MS);
  if (outcome.status !== 'done') return outcome;
  const state = await orgSigningState(knex, orgId);
  if (state.state !== 'ready') return { status: 'unusable' };
  return { status: 'issued', certificate: await signingChainView(knex, state.chain) };
}

/** The vault key of the CA that issues organisations' certificates today (the current sub-CA); undefined when none. */
export async function issuingCaKeyName(knex: Knex): Promise<string | undefined> {
  return (await currentCa(knex, 'sub_ca', new Date()))?.key_name;
}
