/**
 * Signing up, in and out: a registration makes an organisation with its first admin; a sign-in or a refresh gives a
 * token pair; a sign-out ends sessions.
 */
import { randomUUID } from 'node:crypto';
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import type { Knex } from '../../shared/db/knex.js';
import { insertOrganisation } from '../../shared/db/repositories/organisations.js';
import { findUserByEmail, insertUser } from '../../shared/db/repositories/users.js';
import type { Logger } from '../../shared/logger.js';
import { awaitCertificateRequest, requestOrgCertificate } from '../../shared/pki/certificate-requests.js';
import type { LoginThrottle } from '../auth/login-throttle.js';
import type { PasswordPool } from '../auth/password-pool.js';
import { issueTokenPair, refreshTokenFamily, revokeSessions, rotateRefreshToken } from '../auth/token-pairs.js';
import type { TokenPair } from '../auth/tokens.js';
import { unauthenticated } from '../errors.js';
import { checkPasswordStrength } from '../validation.js';
import { emailTaken } from './org-users.js';

/** How long registration waits for the scheduler to issue the new organisation's certificate. */
const REGISTRATION_ISSUANCE_WAIT_MS = 5000;

export interface AuthDeps {
  knex: Knex;
  jwtSecret: string;
  bcryptRounds: number;
  /** Where passwords are hashed and compared: worker threads, never the event loop. */
  passwords: PasswordPool;
}

/** A new organisation and its first user, its admin; the answer is that user's first token pair. */
export async function registerOrganisation(deps: AuthDeps, input: { email: string; password: string; org_name: string; name?: string }, caller: AuditActor, log: Logger): Promise<TokenPair> {
  checkPasswordStrength(input.password, input.email);
  const passwordHash = await deps.passwords.hash(input.password, deps.bcryptRounds);
  try {
    const { pair, requestId } = await deps.knex.transaction(async (trx) => {
      if (await findUserByEmail(input.email, trx)) throw emailTaken();
      const org = await insertOrganisation(input.org_name, trx);
      const user = await insertUser({ id: randomUUID(), org_id: org.id, email: input.email, name: input.name ?? null, password_hash: passwordHash, role: 'admin' }, trx);
      // The organisation's own signing certificate is asked for with it; the scheduler issues it (this role holds
      // no CA key), and a first signature waits for it if it comes first.
      const requestId = await requestOrgCertificate(trx, org.id, 'ensure');
      const pair = await issueTokenPair(deps.jwtSecret, user, trx);
      await recordAuditEvent(trx, { action: 'account.registered', actor: caller, orgId: org.id, target: { type: 'organisation', id: org.id }, details: { org_name: input.org_name } });
      await recordAuditEvent(trx, { action: 'user.created', actor: caller, orgId: org.id, target: { type: 'user', id: user.id }, details: { email: input.email, role: 'admin' } });
      return { pair, requestId };
    });
    // The organisation usually has its certificate when the answer arrives; the registration never depends on it.
    const outcome = await awaitCertificateRequest(deps.knex, requestId, REGISTRATION_ISSUANCE_WAIT_MS);
    if (outcome.status !== 'done') log.warn({ requestId, outcome }, 'organisation certificate not issued at registration; the first signature waits for it');
    return pair;
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
}

export interface LoginDeps extends AuthDeps {
  throttle: LoginThrottle;
  /** Compared against when the e-mail is unknown, so both failures take the same time. */
  dummyHash: () => Promise<string>;
}

/**
 * A password hash of nothing anyone knows, at the service's cost: what `login` compares with when the e-mail has no
 * account. Made at the first sign-in (not at start, so an API that nobody signs in to starts no thread), again if
 * that failed.
 */
export function dummyPasswordHash(deps: Pick<AuthDeps, 'passwords' | 'bcryptRounds'>): () => Promise<string> {
  let made: Promise<string> | undefined;
  return () =>
    (made ??= deps.passwords.hash(randomUUID(), deps.bcryptRounds).catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
}

export async function login(deps: LoginDeps, input: { email: string; password: string }, caller: AuditActor): Promise<TokenPair> {
  // A busy service refuses before the attempt is counted against the account.
  deps.passwords.assertRoom();
  const dummyHash = await deps.dummyHash();
  // Per account, from any address: 429 before the password is even checked.
  try {
    await deps.throttle.attempt(input.email);
  } catch (err) {
    const known = await findUserByEmail(input.email, deps.knex);
    await recordAuditEvent(deps.knex, { action: 'account.sign_in_throttled', actor: caller, orgId: known?.org_id ?? null, target: known ? { type: 'user', id: known.id } : null, outcome: 'refused', details: { email: input.email } });
    throw err;
  }
  const user = await findUserByEmail(input.email, deps.knex);
  const ok = await deps.passwords.compare(input.password, user?.password_hash ?? dummyHash);
  if (!user || !ok) {
    const reason = user ? 'wrong_password' : 'unknown_email';
    await recordAuditEvent(deps.knex, { action: 'account.sign_in_failed', actor: caller, orgId: user?.org_id ?? null, target: user ? { type: 'user', id: user.id } : null, outcome: 'failure', details: { email: input.email, reason } });
    throw unauthenticated('e-mail or password is incorrect', 'invalid_credentials');
  }
  await deps.throttle.succeeded(input.email);
  return deps.knex.transaction(async (trx) => {
    const pair = await issueTokenPair(deps.jwtSecret, user, trx);
    const address = caller.type === 'anonymous' ? caller.address : undefined;
    await recordAuditEvent(trx, { action: 'account.sign_in', actor: { type: 'user', id: user.id }, orgId: user.org_id, target: { type: 'user', id: user.id }, details: { address } });
    return pair;
  });
}

/** A new pair for a refresh token, which is then used up (token-pairs.ts). */
export function refreshSession(deps: AuthDeps, refreshToken: string, caller: AuditActor): Promise<TokenPair> {
  return rotateRefreshToken(deps.knex, deps.jwtSecret, refreshToken, caller);
}

/**
 * Signs the user out of the session of their access token (`familyId`) and of the session of `refreshToken` if
 * given (access tokens issued before sessions were named have no family); with `all`, out of every session.
 */
export async function logout(deps: AuthDeps, user: { userId: string; orgId: string; familyId?: string }, input: { refreshToken?: string; all?: boolean }): Promise<void> {
  const given = input.all || !input.refreshToken ? undefined : await refreshTokenFamily(deps.knex, deps.jwtSecret, input.refreshToken, user.userId);
  await deps.knex.transaction(async (trx) => {
    if (input.all) await revokeSessions(trx, { allOf: user.userId });
    else for (const familyId of new Set([user.familyId, given])) if (familyId) await revokeSessions(trx, { familyId, userId: user.userId });
    await recordAuditEvent(trx, { action: 'account.signed_out', actor: { type: 'user', id: user.userId }, orgId: user.orgId, target: { type: 'user', id: user.userId }, details: { all_sessions: input.all === true } });
  });
}
