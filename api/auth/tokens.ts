import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ServiceError } from '../../shared/errors.js';
import type { Role } from '../../shared/roles.js';

/** Spec, "Limits": access 15 minutes, refresh 30 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/** HS256 only: naming the algorithm on verify is what stops `alg: none` and algorithm confusion. */
export const JWT_ALGORITHM = 'HS256';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  sub: string;
  org: string;
  role: Role;
  typ: TokenType;
  jti: string;
  /** Access tokens: the session (refresh-token family) they belong to; a signed-out family's tokens are refused. */
  fam?: string;
  iat: number;
  exp: number;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

export interface TokenSubject {
  id: string;
  org_id: string;
  role: Role;
}

export function signToken(secret: string, subject: TokenSubject, typ: TokenType, jti: string = randomUUID(), family?: string): string {
  return jwt.sign({ org: subject.org_id, role: subject.role, typ, ...(family ? { fam: family } : {}) }, secret, {
    algorithm: JWT_ALGORITHM,
    subject: subject.id,
    jwtid: jti,
    expiresIn: typ === 'access' ? ACCESS_TOKEN_TTL_SECONDS : REFRESH_TOKEN_TTL_SECONDS,
  });
}

export class TokenError extends ServiceError {
  constructor(override readonly code: 'token_expired' | 'invalid_token', message: string) {
    super('unauthenticated', code, message);
    this.name = 'TokenError';
  }
}

function isClaims(value: unknown): value is TokenClaims {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return ['sub', 'org', 'role', 'typ', 'jti'].every((k) => typeof c[k] === 'string') && typeof c.exp === 'number';
}

/** Verifies signature, algorithm, expiry and token type; the single place tokens are checked. */
export function verifyToken(secret: string, token: string, typ: TokenType): TokenClaims {
  let payload: unknown;
  try {
    payload = jwt.verify(token, secret, { algorithms: [JWT_ALGORITHM] });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw new TokenError('token_expired', `${typ} token has expired`);
    throw new TokenError('invalid_token', `${typ} token is invalid`);
  }
  // A token of the other type is as good as none here.
  if (!isClaims(payload) || payload.typ !== typ) throw new TokenError('invalid_token', `${typ} token is invalid`);
  return payload;
}
