import type { RequestHandler } from 'express';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { hashApiKey, looksLikeApiKey } from '../../shared/api-keys.js';
import { findActiveApiKeyByHash, touchApiKey } from '../../shared/db/repositories/api-keys.js';
import { findAccessTokenUser } from '../../shared/db/repositories/users.js';
import { API_KEY_ROLE, PERMISSIONS, roleAllows, type Permission } from '../../shared/roles.js';
import { ApiError, forbidden, unauthenticated } from '../errors.js';
import type { Principal } from './principal.js';
import { JWT_ALGORITHM } from './tokens.js';

/** last_used_at is written at most this often per key, so API-key traffic does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface JwtPayload {
  sub?: unknown;
  org?: unknown;
  typ?: unknown;
  fam?: unknown;
}

/**
 * The passport bearer strategy. The role comes from the database, not the token, so a demotion or removal
 * takes effect on the next request rather than when the token expires.
 */
export function createPassport(jwtSecret: string): passport.PassportStatic {
  const instance = new passport.Passport() as unknown as passport.PassportStatic;
  instance.use(
    'jwt',
    new JwtStrategy(
      {
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        secretOrKey: jwtSecret,
        algorithms: [JWT_ALGORITHM],
      },
      (payload: JwtPayload, done: (err: unknown, user?: Principal | false, info?: unknown) => void) => {
        if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.org !== 'string') {
          done(null, false, { code: 'invalid_token' });
          return;
        }
        const family = typeof payload.fam === 'string' ? payload.fam : undefined;
        // The user's row (the role is read here, not from the token) and whether the token's session was signed out.
        findAccessTokenUser(payload.sub, family)
          .then((user) => {
            if (!user || user.org_id !== payload.org) return done(null, false, { code: 'invalid_token' });
            if (user.signed_out) return done(null, false, { code: 'signed_out' });
            done(null, { kind: 'user', userId: user.id, orgId: user.org_id, role: user.role, email: user.email, name: user.name ?? null, familyId: family });
          })
          .catch((err: unknown) => done(err));
      },
    ),
  );
  return instance;
}

function bearerFailure(info: unknown): ApiError {
  const name = (info as { name?: unknown } | undefined)?.name;
  if (name === 'TokenExpiredError') return unauthenticated('access token has expired', 'token_expired');
  const message = (info as { message?: unknown } | undefined)?.message;
  if (message === 'No auth token') return unauthenticated('a bearer token or an API key is required');
  if ((info as { code?: unknown } | undefined)?.code === 'signed_out') return unauthenticated('this session has been signed out; sign in again', 'invalid_token');
  return unauthenticated('access token is invalid', 'invalid_token');
}

async function apiKeyPrincipal(raw: string): Promise<Principal> {
  if (!looksLikeApiKey(raw)) throw unauthenticated('API key is invalid', 'invalid_api_key');
  const key = await findActiveApiKeyByHash(hashApiKey(raw));
  if (!key) throw unauthenticated('API key is invalid or revoked', 'invalid_api_key');
  const now = Date.now();
  if (!key.last_used_at || now - key.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await touchApiKey(key.id, new Date(now));
  }
  return { kind: 'api_key', apiKeyId: key.id, orgId: key.org_id, role: API_KEY_ROLE, userId: key.user_id ?? null };
}

/**
 * Establishes req.principal from `Authorization: Bearer` (preferred when both are sent) or `X-API-Key`.
 */
export function authenticate(auth: passport.PassportStatic): RequestHandler {
  return (req, res, next) => {
    const apiKey = req.get('x-api-key');
    if (apiKey !== undefined && req.get('authorization') === undefined) {
      apiKeyPrincipal(apiKey).then((principal) => {
        req.principal = principal;
        next();
      }, next);
      return;
    }
    auth.authenticate('jwt', { session: false }, (err: unknown, user: Principal | false, info: unknown) => {
      if (err) return next(err);
      if (!user) return next(bearerFailure(info));
      req.principal = user;
      next();
    })(req, res, next);
  };
}

/** 403 unless the caller's role (or API key) carries the permission. Run after authenticate(). */
export function requirePermission(permission: Permission): RequestHandler {
  return (req, _res, next) => {
    const principal = req.principal;
    if (!principal) return next(unauthenticated());
    if (principal.kind === 'api_key' && !PERMISSIONS[permission].apiKeys) {
      return next(forbidden('API keys cannot do this; sign in as an admin'));
    }
    if (!roleAllows(principal.role, permission)) return next(forbidden());
    next();
  };
}

/** Endpoints about the signed-in person (e.g. /auth/me) need a user, not an API key. */
export const requireUser: RequestHandler = (req, _res, next) => {
  if (req.principal?.kind !== 'user') return next(forbidden('this endpoint needs a user bearer token'));
  next();
};
