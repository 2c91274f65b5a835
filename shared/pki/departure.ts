/**
 * A person leaves their organisation (their user is deleted). In the caller's transaction, before the user's row goes:
 * - each identity certificate the service CA issued them is revoked (affiliationChanged) in the certificates table, so
 *   that from the commit on OCSP answers revoked once the responders hear of it (announceDeparture, after the commit),
 *   and the scheduler is asked for the rest, which needs the CA key: its answer finds the certificate revoked, reissues
 *   leaf.crl and announces it again (revocation.ts);
 * - each certificate from the organisation's external CA is recorded revoked, as the person's own record of the CA's
 *   revocation would be, so that it never signs again; the CA's CRL and OCSP are the organisation's to change. Their
 *   requests still open are withdrawn: no key is made for someone who has left.
 */
import type { Knex } from 'knex';
import type { AuditActor } from '../audit/vocabulary.js';
import { retirePersonExternalCertificates } from '../db/repositories/external-certificates.js';
import { lockUnrevokedUserIdentityCertificates } from '../db/repositories/identity-certificates.js';
import type { CrlReason } from '../domain/crl-reasons.js';
import { requestIdentityRevocation } from './certificate-requests.js';
import type { PkiEvents } from './pki-events.js';
import { recordRevocation } from './revocation.js';

const DEPARTURE_REASON: CrlReason = 'affiliationChanged';

export interface Departure {
  /** Serials of the service CA's certificates revoked. */
  revoked: string[];
  /** Serials of the external CA's certificates recorded revoked. */
  retiredExternal: string[];
}

export async function revokeDepartingPerson(trx: Knex.Transaction, orgId: string, userId: string, actor: AuditActor): Promise<Departure> {
  const revoked: string[] = [];
  for (const certificate of await lockUnrevokedUserIdentityCertificates(trx, userId)) {
    await recordRevocation(trx, certificate, DEPARTURE_REASON, actor);
    await requestIdentityRevocation(trx, orgId, certificate.id, DEPARTURE_REASON);
    revoked.push(certificate.serial);
  }
  const retiredExternal = await retirePersonExternalCertificates(trx, { orgId, userId }, new Date(), DEPARTURE_REASON);
  return { revoked, retiredExternal };
}

/**
 * Tells the OCSP responders of the revocations, once they are committed, so that they drop the answers they hold. A
 * failure is the caller's to log, not to undo the departure: the scheduler's answer announces them again.
 */
export async function announceDeparture(events: Pick<PkiEvents, 'publish'>, departure: Departure): Promise<void> {
  for (const serial of departure.revoked) await events.publish({ kind: 'revoked', serial });
}
