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
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit/record.js';
import { newestOrgLeaf, type Db } from '../db/repositories/certificates.js';
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
  requestsAwaitingKeys,
  type AcceptedExternalCertificate,
  type ExternalCertificateRow,
  type RequestedSubject,
} from '../db/repositories/external-certificates.js';
import { lockOrganisation } from '../db/repositories/organisations.js';
import { recordWebhookEvent } from '../db/repositories/webhooks.js';
import { ServiceError } from '../errors.js';
import { anchorReached } from '../trust/chain.js';
import type { Anchor } from '../trust/store.js';
import type { KeyVault } from '../vault/types.js';
import { c2paProfileProblems } from './c2pa-profile.js';
import { readCertificate, type CertificateParts } from './certificate.js';
import { externalRequestView } from './certificate-view.js';
import { buildCsr } from './csr.js';
import { derToPem, pemBlocks } from './pem.js';
import type { PkiDeps } from './pki-deps.js';
import { samePublicKey } from './tbs-signer.js';

/** Keys start with `org-`: the web and worker roles may sign with organisations' keys only. */
export function externalKeyName(orgId: string, requestId: string): string {
  return `org-${orgId}-ext-${requestId}`;
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

/**
 * Asks for a key and CSR with `subject` and waits for the scheduler's answer, bounded. Every request makes a vault key
 * (a cost, and the vault's throttling is shared by every organisation), so an organisation may have at most
 * `maxOpen` requests open, their key being made or waiting for the CA's chain: beyond, conflict
 * too_many_pending_requests (counted with the organisation's row locked, so parallel requests cannot all pass).
 */
export async function requestExternalCertificate(knex: Knex, orgId: string, subject: RequestedSubject, options: { maxOpen: number; timeoutMs?: number }): Promise<ExternalRequestOutcome> {
  const timeoutMs = options.timeoutMs ?? KEY_WAIT_MS;
  const id = await knex.transaction(async (trx) => {
    await lockOrganisation(orgId, trx);
    if ((await countOpenExternalRequests(trx, orgId)) >= options.maxOpen) {
      throw new ServiceError(
        'conflict',
        'too_many_pending_requests',
        `the organisation has ${options.maxOpen} certificate requests waiting for a chain (MAX_PENDING_CERTIFICATE_REQUESTS): hand in the chain of one, or withdraw one (POST /org/signing-certificate/requests/{request_id}/withdraw)`,
      );
    }
    return insertExternalRequest(trx, orgId, subject, (requestId) => externalKeyName(orgId, requestId));
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await findExternalRequest(knex, orgId, id);
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
    const csr = await buildCsr(key, { commonName: s.CN, organization: s.O, country: s.C, organizationalUnit: s.OU, locality: s.L, state: s.ST });
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

/**
 * Checks the chain the CA issued for `requestId` (leaf first, then intermediates) and stores it: from now on the
 * organisation signs with it. Throws ChainRefusedError naming the failed check; not_found for another organisation's
 * request; conflict for one not waiting for a chain.
 */
/** Checks and accepts the chain (acceptChecked); a refusal is an audit event of its own. */
export async function acceptExternalChain(...args: Parameters<typeof acceptChecked>): Promise<AcceptedExternalCertificate> {
  const [deps, orgId, requestId] = args;
  try {
    return await acceptChecked(...args);
  } catch (err) {
    if (err instanceof ChainRefusedError) {
      await recordAuditEvent(deps.knex, { action: 'certificate.external_refused', actor: { type: 'service', role: 'pki' }, orgId, target: { type: 'certificate_request', id: requestId }, outcome: 'refused', details: { code: err.code, message: err.message } });
    }
    throw err;
  }
}

async function acceptChecked(
  deps: { knex: Knex; vault: KeyVault },
  orgId: string,
  requestId: string,
  chainPem: string,
  anchors: readonly Anchor[],
  now = new Date(),
): Promise<AcceptedExternalCertificate> {
  const request = await findExternalRequest(deps.knex, orgId, requestId);
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
  const problems = c2paProfileProblems(leaf, 'claim_signer', { at: now });
  if (problems.length > 0) throw new ChainRefusedError('chain_profile', `the certificate does not meet the C2PA claim-signer profile: ${problems.join('; ')}`);
  const x509 = chain.map((c) => new X509Certificate(Buffer.from(c.der)));
  const anchor = anchorReached(x509[0]!, x509.slice(1), anchors);
  if (!anchor) throw new ChainRefusedError('chain_untrusted', 'the chain does not verify up to a trust anchor of this service (the C2PA Trust List or TRUST_ANCHORS_FILE)');
  // What signs embeds leaf and intermediates; a root the CA sent along is the validator's to hold, not the file's.
  const embedded = chain.filter((c, i) => i === 0 || c.facts.subject !== c.facts.issuer);
  // The new certificate and its webhook event (it now signs: a rotation) in one transaction.
  return deps.knex.transaction(async (trx) => {
    const stored = await markRequestAccepted(trx, orgId, requestId, {
      chainPem: embedded.map((c) => derToPem(c.der)).join(''),
      serial: leaf.facts.serialHex,
      subject: leaf.facts.subject,
      issuer: leaf.facts.issuer,
      notBefore: leaf.facts.notBefore,
      notAfter: leaf.facts.notAfter,
      fingerprintSha256: leaf.facts.fingerprintSha256,
    });
    if (!stored) throw new ServiceError('conflict', 'request_not_pending', 'the request was accepted meanwhile');
    const accepted = (await findExternalRequest(trx, orgId, requestId)) as AcceptedExternalCertificate;
    await recordWebhookEvent(trx, { orgId, type: 'signing_certificate.rotated', data: externalRequestView(accepted) });
    await recordAuditEvent(trx, { action: 'certificate.external_accepted', actor: { type: 'service', role: 'pki' }, orgId, target: { type: 'certificate', id: leaf.facts.serialHex }, details: { request_id: requestId, subject: leaf.facts.subject, issuer: leaf.facts.issuer, fingerprint_sha256: leaf.facts.fingerprintSha256 } });
    return accepted;
  });
}

/** Withdraws an open request (one the CA will not answer, say): it can no longer take a chain, and no longer counts. */
export async function withdrawExternalRequest(knex: Knex, orgId: string, requestId: string): Promise<ExternalCertificateRow> {
  if (!(await markRequestWithdrawn(knex, orgId, requestId))) {
    const request = await findExternalRequest(knex, orgId, requestId);
    if (!request) throw new ServiceError('not_found', 'not_found', 'certificate request not found');
    throw new ServiceError('conflict', 'request_not_pending', `the request is ${request.status}: only a request waiting for its key or chain can be withdrawn`);
  }
  return (await findExternalRequest(knex, orgId, requestId))!;
}

/** Records that the CA revoked an accepted certificate; the organisation stops signing with it at once. */
export async function recordExternalRevocation(knex: Knex, orgId: string, requestId: string, reason: string, revokedAt = new Date()): Promise<ExternalCertificateRow> {
  const request = await findExternalRequest(knex, orgId, requestId);
  if (!request) throw new ServiceError('not_found', 'not_found', 'certificate request not found');
  if (request.status !== 'accepted') throw new ServiceError('conflict', 'not_accepted', 'the request has no accepted certificate to revoke');
  if (request.revoked_at) throw new ServiceError('conflict', 'already_revoked', `the certificate was recorded as revoked on ${request.revoked_at.toISOString()}`);
  return knex.transaction(async (trx) => {
    if (!(await markExternalRevoked(trx, orgId, requestId, revokedAt, reason))) throw new ServiceError('conflict', 'already_revoked', 'the certificate was recorded as revoked meanwhile');
    const revoked = (await findExternalRequest(trx, orgId, requestId))!;
    await recordWebhookEvent(trx, { orgId, type: 'signing_certificate.revoked', data: externalRequestView(revoked) });
    return revoked;
  });
}

/**
 * The external certificate the organisation signs with, if one is in force: its newest accepted one, unless the
 * service CA issued it a certificate since (a rotation back to the service CA). Revoked or expired ones included:
 * the caller refuses to sign with those rather than fall back.
 */
export async function externalCertificateInForce(db: Db, orgId: string): Promise<AcceptedExternalCertificate | undefined> {
  const [external, serviceLeaf] = await Promise.all([newestAcceptedExternal(db, orgId), newestOrgLeaf(db, orgId)]);
  if (!external) return undefined;
  return serviceLeaf && serviceLeaf.created_at > external.accepted_at ? undefined : external;
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
