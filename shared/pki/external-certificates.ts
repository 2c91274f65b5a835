/**
 * An organisation's signing certificate from an external CA (one on the C2PA Trust List, say), with the key still in
 * the service's vault:
 *
 * 1. an admin asks (requestExternalCertificate): a row in external_certificate_requests; the scheduler, the role
 *    allowed to create keys, creates a new vault key for it and the PKCS#10 request signed by that key
 *    (answerExternalKeyRequests); the asker waits for it, bounded;
 * 2. the organisation sends the CSR to its CA and hands back the chain it issued (acceptExternalChain): checked (the
 *    leaf holds the request's key, is within its validity, meets the C2PA claim-signer profile, and the chain reaches
 *    an anchor the operator trusts) before it is stored;
 * 3. from then on the organisation signs with it, until it rotates (a newer external certificate, or one from the
 *    service CA), the certificate expires, or its CA revokes it and an admin records that (recordExternalRevocation):
 *    signing stops at once, it never silently falls back to another certificate.
 *
 * The service's own OCSP responder and CRLs do not speak for these certificates: only the issuing CA does.
 *
 * A person takes their CAWG identity certificate from the organisation's CA the same way (the owner is then the
 * person, see RequestOwner): the CSR asks for EKU emailProtection and their e-mail address in subjectAltName, the
 * chain must meet the same profile, carry that address and reach a CAWG anchor (the organisation's anchors or
 * CAWG_TRUST_ANCHORS_FILE), and from then on they sign as themselves with it.
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit/record.js';
import { newestOrgLeaf, type Db } from '../db/repositories/certificates.js';
import { userIdentityCertificates } from '../db/repositories/identity-certificates.js';
import {
  countOpenExternalRequests,
  findExternalRequest,
  insertExternalRequest,
  markExternalRevoked,
  markRequestAccepted,
  markRequestFailed,
  markRequestPending,
  markRequestWithdrawn,
  newestAcceptedExternal,
  ownerOrg,
  requestsAwaitingKeys,
  type AcceptedExternalCertificate,
  type ExternalCertificateRow,
  type RequestedSubject,
  type RequestOwner,
} from '../db/repositories/external-certificates.js';
import { lockOrganisation } from '../db/repositories/organisations.js';
import { recordWebhookEvent } from '../db/repositories/webhooks.js';
import { ServiceError } from '../errors.js';
import { anchorReached } from '../trust/chain.js';
import type { Anchor } from '../trust/store.js';
import type { KeyVault } from '../vault/types.js';
import { c2paProfileProblems } from './c2pa-profile.js';
import { readCertificate, type CertificateParts } from './certificate.js';
import { C2PA_ACCEPTED_EKUS } from './certificate-templates.js';
import { externalRequestView } from './certificate-view.js';
import { buildCsr } from './csr.js';
import { derToPem, pemBlocks } from './pem.js';
import type { PkiDeps } from './pki-deps.js';
import { samePublicKey } from './tbs-signer.js';

/** Keys start with `org-`: the web and worker roles may sign with organisations' keys only. */
export function externalKeyName(owner: RequestOwner, requestId: string): string {
  return typeof owner === 'string' ? `org-${owner}-ext-${requestId}` : `org-${owner.orgId}-person-${owner.userId}-ext-${requestId}`;
}

export type ChainRefusal = 'chain_invalid' | 'chain_key_mismatch' | 'chain_expired' | 'chain_profile' | 'chain_untrusted';

/** A chain refused: 422 with the code naming the check it failed. */
export class ChainRefusedError extends ServiceError {
  constructor(code: ChainRefusal, message: string) {
    super('unprocessable', code, message);
    this.name = 'ChainRefusedError';
  }
}

export type ExternalRequestOutcome =
  | { status: 'ready'; request: ExternalCertificateRow }
  | { status: 'failed'; code: string; message: string }
  /** The scheduler has not made the key and CSR within the wait; the request stands. */
  | { status: 'pending'; requestId: string };

const POLL_MS = 50;
/** How long the asker waits for the scheduler to make the key and CSR (as long as for an issuance). */
const KEY_WAIT_MS = 15_000;

/** Where an owner's requests are, for messages. */
const requestsPath = (owner: RequestOwner) => (typeof owner === 'string' ? '/org/signing-certificate/requests' : '/auth/me/identity-certificate/requests');

/**
 * Asks for a key and CSR with `subject` (and, for a person, `email` in subjectAltName) and waits for the scheduler's
 * answer, bounded. Every request makes a vault key (a cost, and the vault's throttling is shared by every
 * organisation), so an owner may have at most `maxOpen` requests open, their key being made or waiting for the CA's
 * chain: beyond, conflict too_many_pending_requests (counted with the organisation's row locked, so parallel requests
 * cannot all pass). A person's requests count apart from the organisation's.
 */
export async function requestExternalCertificate(knex: Knex, owner: RequestOwner, subject: RequestedSubject, options: { maxOpen: number; timeoutMs?: number; email?: string }): Promise<ExternalRequestOutcome> {
  const timeoutMs = options.timeoutMs ?? KEY_WAIT_MS;
  const id = await knex.transaction(async (trx) => {
    await lockOrganisation(ownerOrg(owner), trx);
    if ((await countOpenExternalRequests(trx, owner)) >= options.maxOpen) {
      throw new ServiceError(
        'conflict',
        'too_many_pending_requests',
        `${typeof owner === 'string' ? 'the organisation has' : 'you have'} ${options.maxOpen} certificate requests waiting for a chain (MAX_PENDING_CERTIFICATE_REQUESTS): hand in the chain of one, or withdraw one (POST ${requestsPath(owner)}/{request_id}/withdraw)`,
      );
    }
    return insertExternalRequest(trx, owner, subject, (requestId) => externalKeyName(owner, requestId), options.email);
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findExternalRequest(knex, owner, id);
    if (!row) return { status: 'failed', code: 'not_found', message: 'the request is gone (its organisation was deleted)' };
    if (row.status === 'failed') return { status: 'failed', code: row.error_code ?? 'csr_failed', message: row.error_message ?? 'the certificate request could not be made' };
    if (row.status !== 'creating') return { status: 'ready', request: row };
    if (Date.now() >= deadline) return { status: 'pending', requestId: id };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Requests the scheduler takes per run. */
export const KEY_REQUEST_BATCH = 20;

/**
 * Makes the key and CSR of each request waiting for them (the scheduler: the role allowed to create vault keys);
 * returns how many it took. A vault that fails answers the request with the failure (the admin asks again).
 */
export async function answerExternalKeyRequests(deps: Pick<PkiDeps, 'knex' | 'vault' | 'logger'>, limit = KEY_REQUEST_BATCH): Promise<number> {
  const waiting = await requestsAwaitingKeys(deps.knex, limit);
  for (const request of waiting) await makeKeyAndCsr(deps, request);
  return waiting.length;
}

/** Creates the request's key and CSR; a failure answers the request with it. */
async function makeKeyAndCsr(deps: Pick<PkiDeps, 'knex' | 'vault' | 'logger'>, request: ExternalCertificateRow): Promise<void> {
  try {
    const key = await deps.vault.ensureKey(request.key_name);
    const s = request.subject;
    const csr = await buildCsr(key, { commonName: s.CN, organization: s.O, country: s.C, organizationalUnit: s.OU, locality: s.L, state: s.ST }, request.purpose === 'identity' ? (request.email ?? undefined) : undefined);
    await markRequestPending(deps.knex, request.id, csr);
  } catch (err) {
    const code = err instanceof ServiceError ? err.code : 'csr_failed';
    deps.logger?.warn({ err, orgId: request.org_id, requestId: request.id }, 'external certificate request: key or CSR could not be made');
    await markRequestFailed(deps.knex, request.id, code, err instanceof ServiceError ? err.publicMessage : 'the key or the certificate request could not be made');
  }
}

/** The operator's way (pki CLI, with a vault identity that may create keys): the request, its key and CSR at once. */
export async function createExternalRequestNow(deps: Pick<PkiDeps, 'knex' | 'vault' | 'logger'>, orgId: string, subject: RequestedSubject): Promise<ExternalCertificateRow> {
  const id = await insertExternalRequest(deps.knex, orgId, subject, (requestId) => externalKeyName(orgId, requestId));
  await makeKeyAndCsr(deps, (await findExternalRequest(deps.knex, orgId, id))!);
  return (await findExternalRequest(deps.knex, orgId, id))!;
}

function parseChain(chainPem: string): CertificateParts[] {
  let blocks;
  try {
    blocks = pemBlocks(chainPem).filter((b) => b.label === 'CERTIFICATE');
  } catch (err) {
    throw new ChainRefusedError('chain_invalid', `chain_pem is not PEM: ${(err as Error).message}`);
  }
  if (blocks.length === 0) throw new ChainRefusedError('chain_invalid', 'chain_pem holds no CERTIFICATE block');
  if (blocks.length > 8) throw new ChainRefusedError('chain_invalid', 'chain_pem holds more than 8 certificates');
  return blocks.map((b, i) => {
    try {
      return readCertificate(b.der);
    } catch (err) {
      throw new ChainRefusedError('chain_invalid', `certificate ${i + 1} of chain_pem cannot be read: ${(err as Error).message}`);
    }
  });
}

/** Checks and accepts the chain (acceptChecked); a refusal is an audit event of its own. */
export async function acceptExternalChain(...args: Parameters<typeof acceptChecked>): Promise<AcceptedExternalCertificate> {
  const [deps, owner, requestId] = args;
  try {
    return await acceptChecked(...args);
  } catch (err) {
    if (err instanceof ChainRefusedError) {
      await recordAuditEvent(deps.knex, { action: 'certificate.external_refused', actor: { type: 'service', role: 'pki' }, orgId: ownerOrg(owner), target: { type: 'certificate_request', id: requestId }, outcome: 'refused', details: { code: err.code, message: err.message, ...personDetails(owner) } });
    }
    throw err;
  }
}

const personDetails = (owner: RequestOwner) => (typeof owner === 'string' ? {} : { purpose: 'identity', user_id: owner.userId });

/** What a person's identity certificate must be beyond the claim-signer profile: for e-mail protection, naming them. */
function identityProblems(leaf: CertificateParts, email: string | null): string[] {
  const problems: string[] = [];
  if (!leaf.facts.extendedKeyUsage.includes(C2PA_ACCEPTED_EKUS.emailProtection)) problems.push('extendedKeyUsage lacks emailProtection');
  const san = new X509Certificate(Buffer.from(leaf.der)).subjectAltName ?? '';
  const addresses = [...san.matchAll(/(?:^|, )email:([^,]+)/g)].map((m) => m[1]!.toLowerCase());
  if (email && !addresses.includes(email.toLowerCase())) problems.push(`subjectAltName does not name ${email} (it names ${addresses.length ? addresses.join(', ') : 'no e-mail address'})`);
  return problems;
}

/**
 * Checks the chain the CA issued for `requestId` (leaf first, then intermediates) and stores it: from now on the
 * owner signs with it. Throws ChainRefusedError naming the failed check; not_found for another owner's request;
 * conflict for one not waiting for a chain. `anchors`: what the chain must reach (for an organisation's signing
 * certificate the claim-signer anchors in use, for a person's identity certificate the CAWG anchors).
 */
async function acceptChecked(
  deps: { knex: Knex; vault: KeyVault },
  owner: RequestOwner,
  requestId: string,
  chainPem: string,
  anchors: readonly Anchor[],
  now = new Date(),
): Promise<AcceptedExternalCertificate> {
  const orgId = ownerOrg(owner);
  const request = await findExternalRequest(deps.knex, owner, requestId);
  if (!request) throw new ServiceError('not_found', 'not_found', 'certificate request not found');
  if (request.status !== 'pending') throw new ServiceError('conflict', 'request_not_pending', `the request is ${request.status === 'accepted' ? 'already accepted: make a new request to rotate' : request.status}`);
  const chain = parseChain(chainPem);
  const [leaf, ...rest] = chain as [CertificateParts, ...CertificateParts[]];
  const key = await deps.vault.getKey(request.key_name);
  if (!samePublicKey(leaf.spkiDer, key.publicKeySpki)) throw new ChainRefusedError('chain_key_mismatch', "the first certificate's public key is not this request's key");
  for (const c of chain) {
    if (now < c.facts.notBefore || now >= c.facts.notAfter) {
      throw new ChainRefusedError('chain_expired', `${c === leaf ? 'the certificate' : `intermediate ${c.facts.subject}`} is not valid now (valid ${c.facts.notBefore.toISOString()} to ${c.facts.notAfter.toISOString()})`);
    }
  }
  const identity = request.purpose === 'identity';
  const problems = [...c2paProfileProblems(leaf, 'claim_signer', { at: now }), ...(identity ? identityProblems(leaf, request.email) : [])];
  if (problems.length > 0) throw new ChainRefusedError('chain_profile', `the certificate does not meet the ${identity ? 'CAWG X.509 identity' : 'C2PA claim-signer'} profile: ${problems.join('; ')}`);
  const x509 = chain.map((c) => new X509Certificate(Buffer.from(c.der)));
  const anchor = anchorReached(x509[0]!, x509.slice(1), anchors);
  if (!anchor) {
    const which = identity ? "a CAWG trust anchor (the organisation's trust anchors, /org/trust-anchors, or CAWG_TRUST_ANCHORS_FILE)" : 'a trust anchor of this service (the C2PA Trust List or TRUST_ANCHORS_FILE)';
    throw new ChainRefusedError('chain_untrusted', `the chain does not verify up to ${which}`);
  }
  // What signs embeds leaf and intermediates; a root the CA sent along is the validator's to hold, not the file's.
  const embedded = chain.filter((c, i) => i === 0 || c.facts.subject !== c.facts.issuer);
  // The new certificate and its webhook event (it now signs: a rotation) in one transaction.
  return deps.knex.transaction(async (trx) => {
    const stored = await markRequestAccepted(trx, owner, requestId, {
      chainPem: embedded.map((c) => derToPem(c.der)).join(''),
      serial: leaf.facts.serialHex,
      subject: leaf.facts.subject,
      issuer: leaf.facts.issuer,
      notBefore: leaf.facts.notBefore,
      notAfter: leaf.facts.notAfter,
      fingerprintSha256: leaf.facts.fingerprintSha256,
    });
    if (!stored) throw new ServiceError('conflict', 'request_not_pending', 'the request was accepted meanwhile');
    const accepted = (await findExternalRequest(trx, owner, requestId)) as AcceptedExternalCertificate;
    // A person's certificate changes nothing of the organisation's signing certificate.
    if (!identity) await recordWebhookEvent(trx, { orgId, type: 'signing_certificate.rotated', data: externalRequestView(accepted) });
    await recordAuditEvent(trx, { action: 'certificate.external_accepted', actor: { type: 'service', role: 'pki' }, orgId, target: { type: 'certificate', id: leaf.facts.serialHex }, details: { request_id: requestId, subject: leaf.facts.subject, issuer: leaf.facts.issuer, fingerprint_sha256: leaf.facts.fingerprintSha256, ...personDetails(owner) } });
    return accepted;
  });
}

/** Withdraws an open request (one the CA will not answer, say): it can no longer take a chain, and no longer counts. */
export async function withdrawExternalRequest(knex: Knex, owner: RequestOwner, requestId: string): Promise<ExternalCertificateRow> {
  if (!(await markRequestWithdrawn(knex, owner, requestId))) {
    const request = await findExternalRequest(knex, owner, requestId);
    if (!request) throw new ServiceError('not_found', 'not_found', 'certificate request not found');
    throw new ServiceError('conflict', 'request_not_pending', `the request is ${request.status}: only a request waiting for its key or chain can be withdrawn`);
  }
  return (await findExternalRequest(knex, owner, requestId))!;
}

/** Records that the CA revoked an accepted certificate; the owner stops signing with it at once. */
export async function recordExternalRevocation(knex: Knex, owner: RequestOwner, requestId: string, reason: string, revokedAt = new Date()): Promise<ExternalCertificateRow> {
  const request = await findExternalRequest(knex, owner, requestId);
  if (!request) throw new ServiceError('not_found', 'not_found', 'certificate request not found');
  if (request.status !== 'accepted') throw new ServiceError('conflict', 'not_accepted', 'the request has no accepted certificate to revoke');
  if (request.revoked_at) throw new ServiceError('conflict', 'already_revoked', `the certificate was recorded as revoked on ${request.revoked_at.toISOString()}`);
  return knex.transaction(async (trx) => {
    if (!(await markExternalRevoked(trx, owner, requestId, revokedAt, reason))) throw new ServiceError('conflict', 'already_revoked', 'the certificate was recorded as revoked meanwhile');
    const revoked = (await findExternalRequest(trx, owner, requestId))!;
    if (typeof owner === 'string') await recordWebhookEvent(trx, { orgId: owner, type: 'signing_certificate.revoked', data: externalRequestView(revoked) });
    return revoked;
  });
}

/**
 * The external certificate the owner signs with, if one is in force: its newest accepted one, unless the service CA
 * issued it a certificate since (a rotation back to the service CA; for a person, a new identity certificate).
 * Revoked or expired ones included: the caller refuses to sign with those rather than fall back.
 */
export async function externalCertificateInForce(db: Db, owner: RequestOwner): Promise<AcceptedExternalCertificate | undefined> {
  const newestService = async () => (typeof owner === 'string' ? newestOrgLeaf(db, owner) : (await userIdentityCertificates(db, owner.orgId, owner.userId, 1))[0]);
  const [external, service] = await Promise.all([newestAcceptedExternal(db, owner), newestService()]);
  if (!external) return undefined;
  return service && service.created_at > external.accepted_at ? undefined : external;
}

/** Why an external certificate cannot sign at `now`; undefined when it can. */
export function externalUnusable(c: AcceptedExternalCertificate, now = new Date()): 'revoked' | 'expired' | 'not_yet_valid' | undefined {
  if (c.revoked_at) return 'revoked';
  if (c.not_after <= now) return 'expired';
  if (c.not_before > now) return 'not_yet_valid';
  return undefined;
}

/** The stored chain as DER: leaf first, then intermediates. */
export function externalChainDer(c: AcceptedExternalCertificate): Uint8Array[] {
  return pemBlocks(c.chain_pem).map((b) => b.der);
}
