import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../shared/config.js';
import { ApiError } from './errors.js';

const AUTH_WINDOW_MS = 15 * 60 * 1000;

export interface RateLimiters {
  /** login, register and refresh: per client address, against password guessing and sign-up floods. */
  auth: RequestHandler;
}

export function createRateLimiters(config: Pick<Config, 'authRateLimit'>): RateLimiters {
  return {
    auth: rateLimit({
      windowMs: AUTH_WINDOW_MS,
      limit: config.authRateLimit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      // The limiter has already set Retry-After; the body follows the service's error shape.
      handler: (_req, _res, next) => next(new ApiError(429, 'rate_limited', 'too many requests; try again later')),
    }),
  };
}
