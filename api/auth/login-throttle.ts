/**
 * Per-account throttling of sign-in attempts (kept in the login_failures table): at most `limit` attempts
 * that did not succeed per e-mail address per window, counted in Postgres so that every API copy and every client
 * address shares the count. An attempt is counted before its password is checked, in one statement, so parallel
 * guesses cannot all slip in under the limit; a successful sign-in clears the count. Addresses without an account
 * are counted the same way, so the answer never tells whether an account exists.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { clearLoginFailures, countLoginAttempt, dropLoginFailuresBefore } from '../../shared/db/repositories/login-failures.js';
import { ApiError } from '../errors.js';

export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

const keyOf = (email: string) => createHash('sha256').update(email).digest('hex');

export interface LoginThrottle {
  /** Counts an attempt for `email`; 429 with Retry-After when the account has had `limit` in this window. */
  attempt(email: string): Promise<void>;
  /** The attempt succeeded: the account's count starts again. */
  succeeded(email: string): Promise<void>;
}

export function loginThrottle(knex: Knex, limit: number): LoginThrottle {
  const windowSeconds = LOGIN_FAILURE_WINDOW_MS / 1000;
  let sinceCleanup = 0;
  return {
    async attempt(email) {
      const row = await countLoginAttempt(keyOf(email), windowSeconds, knex);
      // Rows of windows long past are dropped now and then (a row per address ever tried otherwise stays).
      sinceCleanup += 1;
      if (sinceCleanup >= 100) {
        sinceCleanup = 0;
        await dropLoginFailuresBefore(new Date(Date.now() - LOGIN_FAILURE_WINDOW_MS), knex);
      }
      if (row.failures > limit) {
        throw new ApiError('rate_limited', 'too_many_attempts', 'too many sign-in attempts for this account; try again later', { retryAfterSeconds: Math.max(1, row.retry_after) });
      }
    },
    async succeeded(email) {
      await clearLoginFailures(keyOf(email), knex);
    },
  };
}
