import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../shared/config.js';
import { ApiError } from './errors.js';

const AUTH_WINDOW_MS = 15 * 60 * 1000;

const PUBLIC_WINDOW_MS = 60 * 1000;

export interface RateLimiters {
  /** login, register and refresh: per client address, against password guessing and sign-up floods. */
  auth: RequestHandler;
  /** The public endpoints (verify, manifest repository, soft-binding lookups): per client address. */
  publicApi: RequestHandler;
  /** Thumbnails of recovered manifests: a result page shows up to ten, so ten times the public limit. */
  publicImages: RequestHandler;
}

function limiter(windowMs: number, limit: number): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The limiter has already set Retry-After; the body follows the service's error shape.
    handler: (_req, _res, next) => next(new ApiError(429, 'rate_limited', 'too many requests; try again later')),
  });
}

export function createRateLimiters(config: Pick<Config, 'authRateLimit' | 'publicRateLimit'>): RateLimiters {
  return {
    auth: limiter(AUTH_WINDOW_MS, config.authRateLimit),
    publicApi: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit),
    publicImages: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit * 10),
  };
}
