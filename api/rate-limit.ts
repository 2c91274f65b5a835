import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '../shared/config.js';
import { publicConcurrencyRejections } from '../shared/metrics/metrics.js';
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
  /**
   * The public endpoints that put work on the verification pool: at most PUBLIC_CONCURRENCY_PER_ADDRESS requests in
   * flight per client address, so one client cannot hold the whole pool while others wait.
   */
  publicConcurrency: RequestHandler;
}

/** The client's address as the limits count it: Express's req.ip, which believes TRUST_PROXY_HOPS proxies. */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

function limiter(windowMs: number, limit: number): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // The limiter has already set Retry-After; the body follows the service's error shape.
    handler: (_req, _res, next) => next(new ApiError('rate_limited', 'rate_limited', 'too many requests; try again later')),
  });
}

/**
 * Requests in flight per client address (Express's req.ip, which believes TRUST_PROXY_HOPS proxies): past `perAddress`
 * a 429 at once. A request counts until its response is sent or its connection closes.
 */
function concurrencyLimiter(perAddress: number): RequestHandler {
  const inFlight = new Map<string, number>();
  return (req, res, next) => {
    const address = clientAddress(req);
    const running = inFlight.get(address) ?? 0;
    if (running >= perAddress) {
      publicConcurrencyRejections.inc();
      next(new ApiError('rate_limited', 'too_many_concurrent_requests', `at most ${perAddress} requests at a time per client on this endpoint; wait for one to finish`, { retryAfterSeconds: 1 }));
      return;
    }
    inFlight.set(address, running + 1);
    res.once('close', () => {
      const left = (inFlight.get(address) ?? 1) - 1;
      if (left > 0) inFlight.set(address, left);
      else inFlight.delete(address);
    });
    next();
  };
}

export function createRateLimiters(config: Pick<Config, 'authRateLimit' | 'publicRateLimit' | 'publicConcurrencyPerAddress'>): RateLimiters {
  return {
    auth: limiter(AUTH_WINDOW_MS, config.authRateLimit),
    publicApi: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit),
    publicImages: limiter(PUBLIC_WINDOW_MS, config.publicRateLimit * 10),
    publicConcurrency: concurrencyLimiter(config.publicConcurrencyPerAddress),
  };
}
