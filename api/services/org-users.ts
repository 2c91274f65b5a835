/** The users of an organisation, as its admins manage them: added with a role, re-roled, removed; never without an admin. */
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../../shared/db/errors.js';
import type { Knex } from '../../shared/db/knex.js';
import { lockOrganisation } from '../../shared/db/repositories/organisations.js';
import { countOtherAdmins, deleteUser, findOrgUser, insertUser, listUsersOfOrg, setUserRole, type UserView } from '../../shared/db/repositories/users.js';
import type { Logger } from '../../shared/logger.js';
import { announceDeparture, revokeDepartingPerson, type Departure } from '../../shared/pki/departure.js';
import type { PkiEvents } from '../../shared/pki/pki-events.js';
import type { Role } from '../../shared/roles.js';
import type { PasswordPool } from '../auth/password-pool.js';
import { conflict, notFound } from '../errors.js';
import { checkPasswordStrength } from '../validation.js';

export const emailTaken = () => conflict('an account with this e-mail already exists', 'email_taken');

/**
 * Locks the organisation row so that concurrent demotions or removals cannot both pass the
 * "another admin remains" check and leave the organisation without one.
 */
async function lockOrgAndCountOtherAdmins(trx: Knex.Transaction, orgId: string, userId: string): Promise<number> {
  await lockOrganisation(orgId, trx);
  return countOtherAdmins(orgId, userId, trx);
}

export async function listOrgUsers(knex: Knex, orgId: string): Promise<UserView[]> {
  return (await listUsersOfOrg(orgId, knex)).map((u) => u.toPublic());
}

export async function addOrgUser(
  knex: Knex,
  orgId: string,
  input: { email: string; password: string; role: Role; name?: string },
  hashing: { passwords: PasswordPool; bcryptRounds: number },
  actor: AuditActor,
): Promise<UserView> {
  checkPasswordStrength(input.password, input.email);
  const passwordHash = await hashing.passwords.hash(input.password, hashing.bcryptRounds);
  try {
    const user = await knex.transaction(async (trx) => {
      const inserted = await insertUser({ id: randomUUID(), org_id: orgId, email: input.email, name: input.name ?? null, password_hash: passwordHash, role: input.role }, trx);
      await recordAuditEvent(trx, { action: 'user.created', actor, orgId, target: { type: 'user', id: inserted.id }, details: { email: input.email, role: input.role } });
      return inserted;
    });
    return user.toPublic();
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
}

/** The last admin of an organisation cannot be demoted. */
export async function changeUserRole(knex: Knex, orgId: string, userId: string, role: Role, actor: AuditActor): Promise<UserView> {
  const user = await knex.transaction(async (trx) => {
    const target = await findOrgUser(orgId, userId, trx);
    if (!target) throw notFound('user');
    if (target.role === 'admin' && role !== 'admin' && (await lockOrgAndCountOtherAdmins(trx, orgId, userId)) === 0) {
      throw conflict('the last admin of an organisation cannot be demoted', 'last_admin');
    }
    const from = target.role;
    const changed = await setUserRole(target, role, trx);
    if (from !== role) await recordAuditEvent(trx, { action: 'user.role_changed', actor, orgId, target: { type: 'user', id: userId }, details: { email: target.email, from, to: role } });
    return changed;
  });
  return user.toPublic();
}

/**
 * The last admin of an organisation cannot be removed. The person's identity certificates go with them, in the same
 * transaction (shared/pki/departure.ts); the revocations are announced to the OCSP responders once it commits.
 */
export async function removeOrgUser(knex: Knex, orgId: string, userId: string, actor: AuditActor, pki: { events: Pick<PkiEvents, 'publish'>; logger: Pick<Logger, 'warn'> }): Promise<Departure> {
  const departure = await knex.transaction(async (trx) => {
    const target = await findOrgUser(orgId, userId, trx);
    if (!target) throw notFound('user');
    if (target.role === 'admin' && (await lockOrgAndCountOtherAdmins(trx, orgId, userId)) === 0) {
      throw conflict('the last admin of an organisation cannot be removed', 'last_admin');
    }
    const revoked = await revokeDepartingPerson(trx, orgId, userId, actor);
    await deleteUser(userId, trx);
    await recordAuditEvent(trx, {
      action: 'user.deleted',
      actor,
      orgId,
      target: { type: 'user', id: userId },
      details: { email: target.email, role: target.role, identity_certificates_revoked: revoked.revoked, external_identity_certificates_revoked: revoked.retiredExternal },
    });
    return revoked;
  });
  await announceDeparture(pki.events, departure).catch((err: unknown) => pki.logger.warn({ err, orgId, serials: departure.revoked }, 'could not announce a departed user\'s revoked identity certificates; the scheduler will'));
  return departure;
}
