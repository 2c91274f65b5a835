/**
 * Certificate requests to an external CA as the API shows and takes them (the rules are in
 * shared/pki/external-certificates.ts): an organisation's, for its signing certificate (admins), and a person's, for
 * their own identity certificate. Every call is scoped to its owner.
 */
import { X509Certificate } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../../shared/config.js';
import { findExternalRequest, listExternalRequests, type RequestedSubject, type RequestOwner } from '../../shared/db/repositories/external-certificates.js';
import { organisationTrustAnchorPems } from '../../shared/db/repositories/organisation-trust-anchors.js';
import { externalRequestView } from '../../shared/pki/certificate-view.js';
import { acceptExternalChain, recordExternalRevocation, requestExternalCertificate, withdrawExternalRequest } from '../../shared/pki/external-certificates.js';
import { processTrustStore, type Anchor } from '../../shared/trust/store.js';
import type { KeyVault } from '../../shared/vault/types.js';
import { ApiError, notFound } from '../errors.js';

const LIST_LIMIT = 100;

export type ExternalRequestView = ReturnType<typeof externalRequestView>;

const requestsPath = (owner: RequestOwner) => (typeof owner === 'string' ? '/org/signing-certificate/requests' : '/auth/me/identity-certificate/requests');

/**
 * A new vault key and the CSR for it, made by the scheduler; 503 when it has not answered within the wait, 409 when
 * the owner has MAX_PENDING_CERTIFICATE_REQUESTS open. `email`: a person's address, for the subjectAltName.
 */
export async function createExternalRequest(knex: Knex, config: Pick<Config, 'maxPendingCertificateRequests'>, owner: RequestOwner, subject: RequestedSubject, email?: string): Promise<ExternalRequestView> {
  const outcome = await requestExternalCertificate(knex, owner, subject, { maxOpen: config.maxPendingCertificateRequests, email });
  if (outcome.status === 'pending') {
    throw new ApiError('unavailable', 'csr_pending', `the key and certificate request are being made by the scheduler; request ${outcome.requestId} will show them (GET ${requestsPath(owner)})`, { retryAfterSeconds: 30 });
  }
  if (outcome.status === 'failed') {
    const code = outcome.code === 'vault_unavailable' ? 'vault_unavailable' : 'csr_failed';
    throw new ApiError('unavailable', code, outcome.message, { retryAfterSeconds: 5 });
  }
  return externalRequestView(outcome.request);
}

export async function listExternalRequestViews(knex: Knex, owner: RequestOwner): Promise<ExternalRequestView[]> {
  return (await listExternalRequests(knex, owner, LIST_LIMIT)).map(externalRequestView);
}

export async function getExternalRequest(knex: Knex, owner: RequestOwner, requestId: string): Promise<ExternalRequestView> {
  const row = await findExternalRequest(knex, owner, requestId);
  if (!row) throw notFound('certificate request');
  return externalRequestView(row);
}

/**
 * What the owner's chain must reach: for an organisation's signing certificate, the claim-signer anchors this process
 * trusts (C2PA Trust List, TRUST_ANCHORS_FILE); for a person's identity certificate, the CAWG anchors (the
 * organisation's own trust anchors, CAWG_TRUST_ANCHORS_FILE).
 */
async function anchorsFor(knex: Knex, config: Config, owner: RequestOwner): Promise<readonly Anchor[]> {
  const store = processTrustStore(config);
  if (typeof owner === 'string') return store.claimAnchors;
  const organisation = (await organisationTrustAnchorPems(owner.orgId, knex)).map((pem) => ({ pem, certificate: new X509Certificate(pem), source: 'organisation_anchor' as const }));
  return [...organisation, ...store.cawgAnchors];
}

/** Checks and stores the CA's chain against the anchors the owner's certificate must reach (anchorsFor). */
export async function acceptChain(deps: { knex: Knex; vault: KeyVault; config: Config }, owner: RequestOwner, requestId: string, chainPem: string): Promise<ExternalRequestView> {
  return externalRequestView(await acceptExternalChain(deps, owner, requestId, chainPem, await anchorsFor(deps.knex, deps.config, owner)));
}

export async function withdrawRequest(knex: Knex, owner: RequestOwner, requestId: string): Promise<ExternalRequestView> {
  return externalRequestView(await withdrawExternalRequest(knex, owner, requestId));
}

export async function recordRevocation(knex: Knex, owner: RequestOwner, requestId: string, reason: string, revokedAt: Date | undefined): Promise<ExternalRequestView> {
  return externalRequestView(await recordExternalRevocation(knex, owner, requestId, reason, revokedAt));
}
