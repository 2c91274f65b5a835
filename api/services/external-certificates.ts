/**
 * An organisation's certificate requests to an external CA as the API shows and takes them (the rules are in
 * shared/pki/external-certificates.ts): every call is scoped to the caller's organisation.
 */
import type { Knex } from 'knex';
import type { Config } from '../../shared/config.js';
import { findExternalRequest, listExternalRequests, type RequestedSubject } from '../../shared/db/repositories/external-certificates.js';
import { externalRequestView } from '../../shared/pki/certificate-view.js';
import { acceptExternalChain, recordExternalRevocation, requestExternalCertificate, withdrawExternalRequest } from '../../shared/pki/external-certificates.js';
import { processTrustStore } from '../../shared/trust/store.js';
import type { KeyVault } from '../../shared/vault/types.js';
import { ApiError, notFound } from '../errors.js';

const LIST_LIMIT = 100;

export type ExternalRequestView = ReturnType<typeof externalRequestView>;

/**
 * A new vault key and the CSR for it, made by the scheduler; 503 when it has not answered within the wait, 409 when
 * the organisation has MAX_PENDING_CERTIFICATE_REQUESTS open.
 */
export async function createExternalRequest(knex: Knex, config: Pick<Config, 'maxPendingCertificateRequests'>, orgId: string, subject: RequestedSubject): Promise<ExternalRequestView> {
  const outcome = await requestExternalCertificate(knex, orgId, subject, { maxOpen: config.maxPendingCertificateRequests });
  if (outcome.status === 'pending') {
    throw new ApiError('unavailable', 'csr_pending', `the key and certificate request are being made by the scheduler; request ${outcome.requestId} will show them (GET /org/signing-certificate/requests)`, { retryAfterSeconds: 30 });
  }
  if (outcome.status === 'failed') {
    const code = outcome.code === 'vault_unavailable' ? 'vault_unavailable' : 'csr_failed';
    throw new ApiError('unavailable', code, outcome.message, { retryAfterSeconds: 5 });
  }
  return externalRequestView(outcome.request);
}

export async function listExternalRequestViews(knex: Knex, orgId: string): Promise<ExternalRequestView[]> {
  return (await listExternalRequests(knex, orgId, LIST_LIMIT)).map(externalRequestView);
}

export async function getExternalRequest(knex: Knex, orgId: string, requestId: string): Promise<ExternalRequestView> {
  const row = await findExternalRequest(knex, orgId, requestId);
  if (!row) throw notFound('certificate request');
  return externalRequestView(row);
}

/** Checks and stores the CA's chain against the anchors this process trusts (C2PA Trust List, TRUST_ANCHORS_FILE). */
export async function acceptChain(deps: { knex: Knex; vault: KeyVault; config: Config }, orgId: string, requestId: string, chainPem: string): Promise<ExternalRequestView> {
  const anchors = processTrustStore(deps.config).claimAnchors;
  return externalRequestView(await acceptExternalChain(deps, orgId, requestId, chainPem, anchors));
}

export async function withdrawRequest(knex: Knex, orgId: string, requestId: string): Promise<ExternalRequestView> {
  return externalRequestView(await withdrawExternalRequest(knex, orgId, requestId));
}

export async function recordRevocation(knex: Knex, orgId: string, requestId: string, reason: string, revokedAt: Date | undefined): Promise<ExternalRequestView> {
  return externalRequestView(await recordExternalRevocation(knex, orgId, requestId, reason, revokedAt));
}
