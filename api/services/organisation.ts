/** The caller's organisation: read by every member; its settings (name, discoverability, soft binding) changed by admins. */
import type { Knex } from '../../shared/db/knex.js';
import { findOrganisation, updateOrganisation, type Organisation, type OrganisationSettings } from '../../shared/db/repositories/organisations.js';
import type { Logger } from '../../shared/logger.js';
import { awaitCertificateRequest, ISSUANCE_WAIT_MS, requestOrgCertificate } from '../../shared/pki/certificate-requests.js';
import { orgSigningState } from '../../shared/pki/org-signing.js';
import { applyOrgDiscoverability } from '../../shared/softbinding/repository.js';
import { ApiError, notFound } from '../errors.js';

export interface OrganisationView {
  org_id: string;
  name: string;
  discoverable: boolean;
  soft_binding: boolean;
  created_at: string;
}

function view(org: Organisation): OrganisationView {
  return { org_id: org.id, name: org.name, discoverable: org.discoverable, soft_binding: org.soft_binding, created_at: org.created_at.toISOString() };
}

async function existingOrganisation(knex: Knex, orgId: string): Promise<Organisation> {
  const org = await findOrganisation(orgId, knex);
  if (!org) throw notFound('organisation');
  return org;
}

export async function getOrganisation(knex: Knex, orgId: string): Promise<OrganisationView> {
  return view(await existingOrganisation(knex, orgId));
}

/**
 * Applies the settings given. discoverable: the organisation's files that follow it are listed or unlisted with it;
 * soft_binding: applies to files signed from now on; name: the signing certificate is reissued with the new name,
 * and the rename is undone (503) when it cannot be.
 */
export async function updateOrganisationSettings(knex: Knex, orgId: string, settings: OrganisationSettings, log: Logger): Promise<OrganisationView> {
  const { name, discoverable, soft_binding } = settings;
  const org = await existingOrganisation(knex, orgId);
  if (discoverable !== undefined && discoverable !== org.discoverable) {
    await knex.transaction(async (trx) => {
      await updateOrganisation(orgId, { discoverable }, trx);
      await applyOrgDiscoverability(trx, orgId, discoverable);
    });
  }
  // Applies to files signed from now on: a signed file's manifest cannot lose or gain its assertion.
  if (soft_binding !== undefined && soft_binding !== org.soft_binding) await updateOrganisation(orgId, { soft_binding }, knex);
  if (name === undefined || org.name === name) return getOrganisation(knex, orgId);
  const previous = org.name;
  // An organisation that never had a certificate gets its first one already renamed. One signing with an external
  // CA's certificate keeps it: its subject is what that CA certified, and only a new request changes it.
  const state = (await orgSigningState(knex, orgId)).state;
  const hadCertificate = state !== 'issuable' && state !== 'external' && state !== 'external_unusable';
  const requestId = await knex.transaction(async (trx) => {
    await updateOrganisation(orgId, { name }, trx);
    return hadCertificate ? requestOrgCertificate(trx, orgId, 'rotate') : undefined;
  });
  const outcome = requestId ? await awaitCertificateRequest(knex, requestId, ISSUANCE_WAIT_MS) : undefined;
  if (outcome?.status === 'failed') {
    await updateOrganisation(orgId, { name: previous }, knex);
    log.error({ code: outcome.code, message: outcome.message }, 'rename: the new signing certificate could not be issued; name restored');
    throw new ApiError('unavailable', 'certificate_unavailable', 'the signing certificate with the new name could not be issued; the name is unchanged, try again shortly', { retryAfterSeconds: 30 });
  }
  // Not answered yet (the scheduler is down or busy): the request stands, and the certificate follows.
  if (outcome?.status === 'pending') log.warn({ requestId }, 'rename: the signing certificate with the new name is not issued yet');
  return getOrganisation(knex, orgId);
}
