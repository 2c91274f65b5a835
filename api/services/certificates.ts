/**
 * Organisations' signing certificates as the web role shows them, and what it asks of the issuer: a new one is
 * requested through the one door (shared/pki/certificate-requests.ts) and issued by the scheduler, which holds the
 * CA keys; this role never signs with them.
 */
import type { Knex } from 'knex';
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { certificateStatus, currentCa, currentSigningChain, findCertificateById, orgLeafCertificates, type Certificate, type SigningChain } from '../../shared/db/repositories/certificates.js';
import { ISSUANCE_WAIT_MS, obtainOrgCertificate, type CertificateRequestOutcome } from '../../shared/pki/certificate-requests.js';
import type { AcceptedExternalCertificate } from '../../shared/db/repositories/external-certificates.js';
import { listExternalRequests } from '../../shared/db/repositories/external-certificates.js';
import { externalChainDer, externalUnusable } from '../../shared/pki/external-certificates.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { derToPem } from '../../shared/pki/pem.js';
import { readCertificate } from '../../shared/pki/certificate.js';

/** Who issued a signing certificate, in the words the views use. */
export const SERVICE_CA_LABEL = 'service CA, for private deployments';
/** Days before expiry from which the views warn. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 3600_000;

/** Days left and, within EXPIRY_WARNING_DAYS, the warning. */
function expiryOf(notAfter: Date, now = new Date()) {
  const days = Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
  return {
    expires_in_days: days,
    expiry_warning: days <= EXPIRY_WARNING_DAYS ? `the signing certificate expires on ${notAfter.toISOString().slice(0, 10)} (in ${Math.max(days, 0)} days): renew it before then` : null,
  };
}
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
    source: 'service_ca' as 'service_ca' | 'external_ca',
    issued_by: SERVICE_CA_LABEL,
    ...expiryOf(chain.leaf.not_after),
  };
}

/** An external CA's certificate in the same shape: its chain as the CA gave it; the root is the validator's, not ours. */
function externalCertificateView(c: AcceptedExternalCertificate): SigningCertificateView {
  const chain = externalChainDer(c).map((der, i) => {
    const facts = readCertificate(der).facts;
    return {
      role: i === 0 ? ('leaf' as const) : ('sub_ca' as const),
      serial: facts.serialHex,
      subject: facts.subject,
      issuer: facts.issuer,
      not_before: facts.notBefore.toISOString(),
      not_after: facts.notAfter.toISOString(),
      fingerprint_sha256: facts.fingerprintSha256,
      pem: derToPem(der),
    };
  });
  return {
    serial: c.serial,
    subject: c.certificate_subject,
    issuer: c.certificate_issuer,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    fingerprint_sha256: c.fingerprint_sha256,
    certificate_pem: chain[0]!.pem,
    chain_pem: c.chain_pem,
    chain,
    root: null,
    source: 'external_ca',
    issued_by: `external CA: ${c.certificate_issuer}`,
    ...expiryOf(c.not_after),
  };
}

export type SigningCertificateView = Awaited<ReturnType<typeof signingChainView>>;

/** The organisation's current signing certificate with its chain; undefined when it has none it may sign with. */
export async function currentOrgSigningCertificate(knex: Knex, orgId: string): Promise<SigningCertificateView | undefined> {
  const state = await orgSigningState(knex, orgId);
  if (state.state === 'external') return externalCertificateView(state.certificate);
  if (state.state === 'external_unusable') return undefined;
  const chain = await currentSigningChain(knex, new Date(), 'leaf', orgId);
  return chain && signingChainView(knex, chain);
}

/** Words for the organisation's state, as the API names it. */
const STATE = { ready: 'valid', external: 'valid', issuable: 'not_issued', revoked: 'revoked', no_ca: 'no_issuing_ca' } as const;
/** How many of an organisation's past certificates are listed. */
const HISTORY_LIMIT = 100;

/** Where the organisation stands for signing, its current certificate and the ones it had (newest first). */
export async function orgSigningCertificateStatus(knex: Knex, orgId: string) {
  const [state, rows, requests] = await Promise.all([orgSigningState(knex, orgId), orgLeafCertificates(knex, orgId, HISTORY_LIMIT), listExternalRequests(knex, orgId, HISTORY_LIMIT)]);
  const own = rows.map((c) => ({
    serial: c.serial,
    subject: c.subject,
    issuer: c.issuer,
    issued_by: SERVICE_CA_LABEL,
    source: 'service_ca' as const,
    not_before: c.not_before.toISOString(),
    not_after: c.not_after.toISOString(),
    status: certificateStatus(c) as ReturnType<typeof certificateStatus>,
    revoked_at: c.revoked_at?.toISOString() ?? null,
    revocation_reason: c.revocation_reason as string | null,
    since: c.created_at,
  }));
  const external = requests
    .filter((r): r is AcceptedExternalCertificate => r.status === 'accepted')
    .map((r) => ({
      serial: r.serial,
      subject: r.certificate_subject,
      issuer: r.certificate_issuer,
      issued_by: `external CA: ${r.certificate_issuer}`,
      source: 'external_ca' as const,
      not_before: r.not_before.toISOString(),
      not_after: r.not_after.toISOString(),
      status: externalUnusable(r) === 'not_yet_valid' ? ('not_yet_valid' as const) : (externalUnusable(r) ?? ('valid' as const)),
      revoked_at: r.revoked_at?.toISOString() ?? null,
      revocation_reason: r.revocation_reason,
      since: r.accepted_at,
    }));
  const current =
    state.state === 'ready' ? await signingChainView(knex, state.chain) : state.state === 'external' ? externalCertificateView(state.certificate) : null;
  return {
    status: state.state === 'external_unusable' ? (state.reason === 'revoked' ? 'revoked' : 'expired') : STATE[state.state],
    current,
    // Newest first, the service CA's and external CAs' together (rotation keeps the history).
    certificates: [...own, ...external].sort((a, b) => b.since.getTime() - a.since.getTime()).map(({ since: _since, ...c }) => c),
  };
}

export type RotationOutcome =
  | { status: 'issued'; certificate: SigningCertificateView }
  /** Issued, but not usable for signing (no valid sub-CA above it any more). */
  | { status: 'unusable' }
  | Exclude<CertificateRequestOutcome, { status: 'done' }>;

/** Asks the scheduler for a new certificate and key for the organisation and waits for it, bounded. */
export async function rotateOrgSigningCertificate(knex: Knex, orgId: string, actor: AuditActor): Promise<RotationOutcome> {
  const outcome = await obtainOrgCertificate(knex, orgId, 'rotate', ISSUANCE_WAIT_MS);
  const state = outcome.status === 'done' ? await orgSigningState(knex, orgId) : undefined;
  const rotation: RotationOutcome =
    outcome.status !== 'done' ? outcome : state?.state !== 'ready' ? { status: 'unusable' } : { status: 'issued', certificate: await signingChainView(knex, state.chain) };
  const serial = rotation.status === 'issued' ? rotation.certificate.serial : undefined;
  await recordAuditEvent(knex, { action: 'certificate.rotated', actor, orgId, target: { type: 'certificate', id: serial ?? orgId }, outcome: rotation.status === 'issued' ? 'success' : 'failure', details: { status: rotation.status, serial } });
  return rotation;
}

/** The vault key of the CA that issues organisations' certificates today (the current sub-CA); undefined when none. */
export async function issuingCaKeyName(knex: Knex): Promise<string | undefined> {
  return (await currentCa(knex, 'sub_ca', new Date()))?.key_name;
}
