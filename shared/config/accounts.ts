/** Accounts and the limits that protect them: the token secret, password hashing, and request rate limits. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ConfigError, int, optional, type Env, type NodeEnv } from './parse.js';

export interface AccountSettings {
  jwtSecret: string;
  /** Requests per client per 15 minutes on login, register and refresh. */
  authRateLimit: number;
  /** Requests per client per minute on the public endpoints (verify, manifest repository, lookups). */
  publicRateLimit: number;
  /** Sign-in attempts per account (e-mail address) per 15 minutes that did not succeed, from any address. */
  loginFailureLimit: number;
  /** Requests one client address may have in flight on the heavy public endpoints (PUBLIC_CONCURRENCY_PER_ADDRESS). */
  publicConcurrencyPerAddress: number;
  bcryptRounds: number;
  /**
   * Worker threads that hash and compare passwords off the event loop (PASSWORD_THREADS), and the password checks
   * that may be running or waiting at once in one API process (PASSWORD_CHECKS_MAX; beyond, 503 auth_busy).
   */
  passwordThreads: number;
  passwordChecksMax: number;
}

/** Placeholders that must never sign production tokens. */
const KNOWN_WEAK_SECRETS = new Set(['secret', 'changeme', 'change-me', 'jwt_secret', 'your-secret', 'development']);
const MIN_PRODUCTION_SECRET_LENGTH = 32;

export function accountSettings(env: Env, nodeEnv: NodeEnv, dataDir: string): AccountSettings {
  return {
    jwtSecret: resolveJwtSecret(env, nodeEnv, dataDir),
    authRateLimit: int(env, 'AUTH_RATE_LIMIT', 20, 1, 1_000_000),
    publicRateLimit: int(env, 'PUBLIC_RATE_LIMIT', 30, 1, 1_000_000),
    loginFailureLimit: int(env, 'LOGIN_FAILURE_LIMIT', 10, 1, 1_000_000),
    publicConcurrencyPerAddress: int(env, 'PUBLIC_CONCURRENCY_PER_ADDRESS', 2, 1, 1000),
    // bcryptjs is pure JS: 12 rounds is about a quarter second; production may not go below 10.
    bcryptRounds: int(env, 'BCRYPT_ROUNDS', 12, nodeEnv === 'production' ? 10 : 4, 15),
    // One core is left to the event loop (and the verification pool's processes).
    passwordThreads: int(env, 'PASSWORD_THREADS', Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 64),
    passwordChecksMax: int(env, 'PASSWORD_CHECKS_MAX', 32, 1, 100_000),
  };
}

/**
 * Outside production a missing JWT_SECRET is replaced by a random one kept in the data directory,
 * so that tokens survive restarts and every local process agrees, without a well-known default.
 */
function resolveJwtSecret(env: Env, nodeEnv: NodeEnv, dataDir: string): string {
  const given = optional(env, 'JWT_SECRET');
  if (nodeEnv === 'production') {
    if (given === undefined) throw new ConfigError('JWT_SECRET', 'must be set in production');
    if (given.length < MIN_PRODUCTION_SECRET_LENGTH) {
      throw new ConfigError('JWT_SECRET', `must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters in production`);
    }
    if (KNOWN_WEAK_SECRETS.has(given.toLowerCase())) throw new ConfigError('JWT_SECRET', 'is a placeholder value');
    return given;
  }
  if (given !== undefined) return given;
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}
