/** The login_failures table: sign-in attempts per e-mail address (by hash) in the current window. */
import { Model } from 'objection';
import type { Knex } from '../knex.js';

export class LoginFailure extends Model {
  static override tableName = 'login_failures';
  static override idColumn = 'email_key';
  declare email_key: string;
  declare failures: number;
  declare window_started_at: Date;
}

/**
 * Counts an attempt for the address in one statement (parallel attempts cannot both read a stale count); a window
 * older than `windowSeconds` starts again. Returns the count and the seconds left of the window.
 */
export async function countLoginAttempt(emailKey: string, windowSeconds: number, db: Knex = LoginFailure.knex()): Promise<{ failures: number; retry_after: number }> {
  const result = await db.raw<{ rows: { failures: number; retry_after: number }[] }>(
    `INSERT INTO login_failures (email_key, failures, window_started_at) VALUES (?, 1, now())
     ON CONFLICT (email_key) DO UPDATE SET
       failures = CASE WHEN login_failures.window_started_at <= now() - make_interval(secs => ?) THEN 1 ELSE login_failures.failures + 1 END,
       window_started_at = CASE WHEN login_failures.window_started_at <= now() - make_interval(secs => ?) THEN now() ELSE login_failures.window_started_at END
     RETURNING failures, ceil(extract(epoch FROM window_started_at + make_interval(secs => ?) - now()))::int AS retry_after`,
    [emailKey, windowSeconds, windowSeconds, windowSeconds],
  );
  return result.rows[0]!;
}

export async function clearLoginFailures(emailKey: string, db?: Knex): Promise<void> {
  await LoginFailure.query(db).where({ email_key: emailKey }).delete();
}

/** Drops the rows of windows that started before `before`. */
export async function dropLoginFailuresBefore(before: Date, db?: Knex): Promise<void> {
  await LoginFailure.query(db).where('window_started_at', '<', before).delete();
}
