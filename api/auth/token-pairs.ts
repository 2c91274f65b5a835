import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { findRefreshToken, findUserById, insertRefreshToken, lockRefreshToken, markRefreshTokenUsed, revokeRefreshTokens } from '../../shared/db/repositories/users.js';
import { unauthenticated } from '../errors.js';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, signToken, verifyToken, type TokenPair, type TokenSubject } from './tokens.js';

/** Issues an access/refresh pair and records the refresh token, in `familyId` or a new family. */
export async function issueTokenPair(
  secret: string,
  user: TokenSubject,
  trx?: Knex.Transaction,
  familyId: string = randomUUID(),
): Promise<TokenPair> {
  const jti = randomUUID();
  await insertRefreshToken({ jti, family_id: familyId, user_id: user.id, expires_at: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000) }, trx);
  return {
    access_token: signToken(secret, user, 'access', randomUUID(), familyId),
    refresh_token: signToken(secret, user, 'refresh', jti),
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
  };
}

/**
 * Single-use refresh: the presented token is marked used and a new pair issued in the same family.
 * Presenting a token that was already used means it leaked (or was replayed): the whole family is revoked,
 * so both the thief and the owner must sign in again.
 */
export async function rotateRefreshToken(knex: Knex, secret: string, refreshToken: string, caller: AuditActor): Promise<TokenPair> {
  const claims = verifyToken(secret, refreshToken, 'refresh');
  const outcome = await knex.transaction(async (trx) => {
    const row = await lockRefreshToken(claims.jti, trx);
    if (!row || row.user_id !== claims.sub) return { error: 'refresh token is invalid' } as const;
    if (row.revoked_at) return { error: 'refresh token has been revoked' } as const;
    if (row.used_at) {
      await revokeRefreshTokens({ familyId: row.family_id }, trx);
      const owner = await findUserById(row.user_id, trx);
      await recordAuditEvent(trx, { action: 'account.refresh_token_reused', actor: caller, orgId: owner?.org_id ?? null, target: { type: 'user', id: row.user_id }, outcome: 'refused', details: { session: row.family_id } });
      return { error: 'refresh token was already used; all sessions from it have been signed out' } as const;
    }
    const user = await findUserById(row.user_id, trx);
    if (!user) return { error: 'refresh token is invalid' } as const;
    await markRefreshTokenUsed(row.jti, trx);
    return { pair: await issueTokenPair(secret, user, trx, row.family_id) } as const;
  });
  if ('error' in outcome) throw unauthenticated(outcome.error, 'invalid_token');
  return outcome.pair;
}

/**
 * Signs a session out: every refresh token of the family is revoked, and the family's access tokens are refused from
 * the next request on (authenticate.ts). With `allOf`, every session of that user.
 */
export async function revokeSessions(knex: Knex, scope: { familyId: string; userId: string } | { allOf: string }): Promise<void> {
  await revokeRefreshTokens(scope, knex);
}

/** The family of a refresh token the user presents (to sign it out), or undefined if it is not a valid one of theirs. */
export function refreshTokenFamily(knex: Knex, secret: string, refreshToken: string, userId: string): Promise<string | undefined> {
  let jti: string;
  try {
    const claims = verifyToken(secret, refreshToken, 'refresh');
    if (claims.sub !== userId) return Promise.resolve(undefined);
    jti = claims.jti;
  } catch {
    return Promise.resolve(undefined);
  }
  return findRefreshToken(jti, knex).then((row) => (row?.user_id === userId ? row.family_id : undefined));
}
